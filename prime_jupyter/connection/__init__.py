"""The `AgentConnection` seam: the only surface a front end uses to reach a session.

Implementations: `InProcessAgentConnection` (the runtime in this process), `HttpAgentConnection` (a
session in a Jupyter server) and `FakeAgentConnection` (for front-end tests). Events and commands that
cross it are the serialisable models of `prime_jupyter.protocol` (design.md D9).
"""
