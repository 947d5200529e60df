"""Requests and responses of the connection routes, under `<base_url>prime/api/connection/`.

| route | request | response |
|---|---|---|
| `POST attach` | `AttachRequest` | `AttachResponse`; 409 when the client's protocol is incompatible |
| `POST command` | `CommandRequest` | the command's result model (`snapshot.COMMAND_RESULTS`), header `X-Prime-Cursor` |
| `POST wait` | `WaitRequest` | `WaitResult` once the session is idle |
| `GET events?sessionId=&cursor=` | | SSE of `ConnectionOutbound`: `connected`, then session events with `id: <seq>` |

Failures are an HTTP status with an `ErrorBody` (busy 409, unknown session 404, bad request 400).
`X-Prime-Cursor` (and `WaitResult.cursor`) is the sequence number of the newest session event when the
answer was made: a client that has seen the stream up to it has seen every event the command caused.
"""

from __future__ import annotations

from prime_jupyter.protocol.commands import Command
from prime_jupyter.protocol.requests import ModelRef
from prime_jupyter.protocol.snapshot import AttachSnapshot, ConnectionState
from prime_jupyter.protocol.wire import WireModel

__all__ = [
    "CONNECTION_PATH",
    "CURSOR_HEADER",
    "AttachRequest",
    "AttachResponse",
    "CommandRequest",
    "WaitRequest",
    "WaitResult",
]

CONNECTION_PATH = "prime/api/connection/"
"""Where the connection routes live, relative to the server's base URL."""
CURSOR_HEADER = "X-Prime-Cursor"


class AttachRequest(WireModel):
    """Attach to a session (by id or unique id prefix), or create one in `cwd` when no id is given.

    `model` and `thinkingLevel` apply to a session this request creates."""

    session_id: str | None = None
    cwd: str | None = None
    model: ModelRef | None = None
    thinking_level: str | None = None
    client_protocol_version: int
    client_schema_revision: int = 0


class AttachResponse(WireModel):
    """The server's versions and capabilities, and the session as of `snapshot.cursor`."""

    version: str
    protocol_version: int
    schema_revision: int
    capabilities: list[str]
    snapshot: AttachSnapshot


class CommandRequest(WireModel):
    session_id: str
    command: Command


class WaitRequest(WireModel):
    session_id: str


class WaitResult(WireModel):
    """The session is idle; `cursor` is its newest event then."""

    state: ConnectionState
    cursor: int
