"""The `AgentConnection` seam: the only surface a front end uses to reach a session.

Implementations: `InProcessAgentConnection` (the runtime in this process), `HttpAgentConnection` (a
session in a Jupyter server) and `FakeAgentConnection` (for front-end tests). Events and commands that
cross it are the serialisable models of `prime_jupyter.protocol` (design.md D9).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prime_jupyter.connection.door import NO_SERVER, ServerTarget, open_connection

if TYPE_CHECKING:
    from prime_jupyter.connection.base import AgentConnection, ConnectionExtensions
    from prime_jupyter.connection.in_process import LocalTarget

__all__ = ["NO_SERVER", "AgentConnection", "ConnectionExtensions", "LocalTarget", "ServerTarget", "open_connection"]


def __getattr__(name: str) -> object:
    # `LocalTarget` lives beside the runtime it builds: importing it imports the runtime, so only on use.
    if name == "LocalTarget":
        from prime_jupyter.connection.in_process import LocalTarget

        return LocalTarget
    if name in ("AgentConnection", "ConnectionExtensions"):
        from prime_jupyter.connection import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
