"""The Jupyter server extension, one sub-package per resource.

    app.py        `PrimeApp`, the `ExtensionApp` (traitlets, wiring); `config.py` what the bridge reads of it
    lazy.py       the one route rule the server gets; imports `routes.py` (the URL table) on first request
    info.py       `GET info`: versions, the capabilities this server serves, kernel readiness
    http/         the plumbing every route shares: `PrimeHandler` (auth, bodies, errors), streams, feeds
    chat/         the chat routes the JupyterLab panel speaks (chat frames, NDJSON turns, SSE, commands)
    attach/       the connection routes `HttpAgentConnection` speaks (session events, commands, snapshots)
    host/         what hosts the sessions: `PrimeBridge`, live sessions, ring buffers, questions, kernels

Dependencies point down this list's reverse: `host` imports neither `http` nor the route families;
`http` imports `host`; `chat` and `attach` import both and never each other; `routes` imports the
families; nothing imports `app`. Operations both route families need and that are not HTTP-specific
(fork, seeding, cwd resolution, thinking levels, export paths) live in `prime_jupyter.runtime.session_ops`.
"""
