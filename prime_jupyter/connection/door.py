"""`open_connection`: the one door every front end comes through (design.md D11).

A front end says where the session is, never how to build it:

    connection = await open_connection(LocalTarget(cwd=Path.cwd(), mode="continue"))
    connection = await open_connection(ServerTarget(cwd=Path.cwd(), session="9c41e2d7"))

`LocalTarget` runs the session in this process (the runtime is imported then, and only then);
`ServerTarget` attaches to a session of a running Jupyter server, found by URL, Unix socket, or
through Jupyter's runtime directory (the newest server whose root holds `cwd`). Both answer an
`AgentConnection`, which is all a front end types against.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple, TypeAlias

from prime_jupyter.errors import PrimeError

if TYPE_CHECKING:
    from prime_jupyter.connection._discovery import RunningServer
    from prime_jupyter.connection._endpoint import ServerEndpoint
    from prime_jupyter.connection.base import AgentConnection
    from prime_jupyter.connection.in_process import LocalTarget
    from prime_jupyter.protocol.common import ModelRef

__all__ = ["NO_SERVER", "ServerTarget", "SessionMode", "open_connection"]

SessionMode: TypeAlias = Literal["new", "continue", "resume", "none"]
"""Which transcript a `LocalTarget` opens: a new one, the newest of its folder, a named one, or none."""

NO_SERVER = "no running Jupyter server found: start one with `jupyter lab` or pass --url/--token"


class ServerTarget(NamedTuple):
    """A session living in a Jupyter server.

    `url` or `sock` (with `token`) name the server; with neither, the newest running server whose root
    directory holds `cwd` is used, and a new session starts in `cwd` there. `session` (any unique part of an
    id, or a name) continues a session; without it a new one starts, in `new_session_cwd` when given
    (relative to the server's root). `model` is `provider/id[:thinking]`, for a new session or switched
    to on an existing one.

    A `NamedTuple`, not a dataclass: importing `dataclasses` (and `inspect`) was 5 ms of the 75 ms
    launch budget of `jupyter prime attach -p`."""

    cwd: Path
    url: str | None = None
    sock: str | None = None
    token: str | None = None
    session: str | None = None
    model: str | None = None
    new_session_cwd: str | None = None
    permission_mode: str | None = None
    """For a new session, or switched to on an existing one; None: the server's default."""


async def open_connection(target: LocalTarget | ServerTarget) -> AgentConnection:
    """A connection to the session `target` names; raises `PrimeError`s a user can act on."""
    if isinstance(target, ServerTarget):
        return await _attach(target)
    from prime_jupyter.connection.in_process import InProcessAgentConnection

    return InProcessAgentConnection.open(target)


async def _attach(target: ServerTarget) -> AgentConnection:
    from prime_jupyter.connection.http import HttpAgentConnection

    endpoint, serves_cwd = _endpoint(target)
    model, thinking = _model(target.model)
    new_cwd = target.new_session_cwd or (str(target.cwd) if serves_cwd else None)
    connection = await HttpAgentConnection.connect(
        endpoint,
        target.session,
        cwd=new_cwd,
        model=model,
        thinking_level=thinking,
        permission_mode=target.permission_mode,
    )
    try:
        if target.session is not None and model is not None:
            await connection.set_model(model.provider, model.id)
        if target.session is not None and thinking is not None:
            await connection.set_thinking_level(thinking)
        if target.session is not None and target.permission_mode is not None:
            await connection.set_permission_mode(target.permission_mode)
    except BaseException:
        await connection.dispose()
        raise
    return connection


def _endpoint(target: ServerTarget) -> tuple[ServerEndpoint, bool]:
    """The server to attach to, and whether it is known to serve `target.cwd`. A `--url` without a token
    takes the token of the running server at that URL, as its info file has it."""
    from prime_jupyter.connection._discovery import find_server, running_servers
    from prime_jupyter.connection._endpoint import ServerEndpoint

    if target.url:
        return ServerEndpoint(target.url, target.token or _token_of(target.url, running_servers())), False
    if target.sock:
        return ServerEndpoint.unix(target.sock, target.token), True
    found = find_server(target.cwd)
    if found is None:
        servers = running_servers()
        raise PrimeError(_choose_a_server(target.cwd, servers) if servers else NO_SERVER)
    token = target.token or found.endpoint.token
    return ServerEndpoint(found.endpoint.url, token, found.endpoint.sock), True


def _token_of(url: str, servers: list[RunningServer]) -> str | None:
    wanted = url.rstrip("/")
    tcp = (s.endpoint for s in servers if not s.endpoint.sock)
    return next((endpoint.token for endpoint in tcp if endpoint.url.rstrip("/") == wanted), None)


def _choose_a_server(cwd: Path, servers: list[RunningServer]) -> str:
    """Servers run, but none has `cwd` under its root: list them (never their tokens) and say how to pick."""
    listed = "\n".join(
        f"  {f'--sock {s.endpoint.sock}' if s.endpoint.sock else s.endpoint.url}  (root {s.root_dir})" for s in servers
    )
    return (
        f"no running Jupyter server has {cwd} under its root directory; running servers:\n{listed}\n"
        "choose one with --url URL (or --sock PATH), or run this command from a folder under its root"
    )


def _model(value: str | None) -> tuple[ModelRef | None, str | None]:
    if value is None:
        return None, None
    from prime_jupyter.ai.registry import parse_model_ref  # about 0.1 s of imports: only when asked for
    from prime_jupyter.protocol.common import ModelRef

    ref = parse_model_ref(value)
    if not ref.provider:
        raise PrimeError(f"--model {value!r}: write provider/model-id, e.g. anthropic/claude-sonnet-5-5")
    return ModelRef(provider=ref.provider, id=ref.model_id), ref.thinking
