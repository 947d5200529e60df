"""Whether a running Jupyter server has a session open, asked before this process writes its transcript.

A session open in a server (the panel's, or one `jupyter prime attach` started) is written by that
server. A second process that continued it (`jupyter prime -c`, `-r`, a notebook's `%prime resume`)
would append from the same leaf: the transcript forks and neither side sees the other's turns. So a
process asks every running server (`_discovery`) for the sessions it has open (`GET
prime/api/chat/sessions?live=1`, authenticated with the server's token as its info file has it) and
refuses with the command that joins the session there instead.

A server that cannot be reached, or that has no prime extension, holds nothing as far as this can tell.
"""

from __future__ import annotations

import json
from pathlib import Path

from prime_jupyter.connection._discovery import RunningServer, running_servers
from prime_jupyter.connection._plain_http import plain_request
from prime_jupyter.errors import PrimeError, SessionError

__all__ = ["attach_command", "refuse_if_held", "server_holding"]

_READ_TIMEOUT_S = 5.0


def refuse_if_held(session_id: str, path: Path, cwd: Path) -> None:
    """Raise `SessionError` saying how to attach when a running server has this session open."""
    server = server_holding(session_id, path)
    if server is None:
        return
    raise SessionError(
        f"session {session_id} is open in the Jupyter server at {server.endpoint.display}: "
        "a second process writing it would fork its transcript. Join it there instead:\n"
        f"  {attach_command(server, session_id, cwd)}\n"
        "(add -p 'prompt' to run one prompt and print the answer)"
    )


def attach_command(server: RunningServer, session_id: str, cwd: Path) -> str:
    """`jupyter prime attach --session <id8>`, naming the server unless it is the one found from `cwd`."""
    from prime_jupyter.connection._discovery import find_server

    words = ["jupyter prime attach", "--session", session_id.replace("-", "")[-8:]]
    found = find_server(cwd)
    if found is None or found.endpoint != server.endpoint:
        words += ["--sock", server.endpoint.sock] if server.endpoint.sock else ["--url", server.endpoint.url]
    return " ".join(words)


def server_holding(session_id: str, path: Path) -> RunningServer | None:
    """The running server that has the session (this id, or this transcript file) open, if any."""
    for server in running_servers():
        if _holds(server, session_id, path):
            return server
    return None


def _holds(server: RunningServer, session_id: str, path: Path) -> bool:
    try:
        response = plain_request(server.endpoint, "GET", "prime/api/chat/sessions?live=1", None, _READ_TIMEOUT_S)
    except PrimeError:
        return False
    try:
        body = response.read() if response.status == 200 else b""
    except OSError:
        body = b""
    finally:
        response.close()
    try:
        sessions = json.loads(body).get("sessions") if body else None
    except (ValueError, AttributeError):
        return False
    if not isinstance(sessions, list):
        return False
    return any(_same(s, session_id, path) for s in sessions if isinstance(s, dict) and s.get("status") != "saved")


def _same(summary: dict[str, object], session_id: str, path: Path) -> bool:
    if summary.get("sessionId") == session_id:
        return True
    other = summary.get("path")
    return isinstance(other, str) and Path(other).resolve() == path.resolve()
