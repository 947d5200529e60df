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

The events stream (`ConnectionOutbound`) carries sequenced session events in their `codec.py` JSON form,
a new snapshot when the session was replaced, and the question and UI frames the chat stream uses too.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field, JsonValue

from prime_jupyter.protocol.commands import Command
from prime_jupyter.protocol.common import ModelRef
from prime_jupyter.protocol.frames import (
    ConnectedFrame,
    NotifyFrame,
    QuestionFrame,
    QuestionResolvedFrame,
    ResyncRequiredFrame,
    StatusFrame,
    WidgetFrame,
)
from prime_jupyter.protocol.snapshot import AttachSnapshot, ConnectionState
from prime_jupyter.protocol.wire import WireModel

__all__ = [
    "CONNECTION_PATH",
    "CURSOR_HEADER",
    "AttachRequest",
    "AttachResponse",
    "CommandRequest",
    "ConnectionOutbound",
    "SessionEventMessage",
    "SessionReplacedMessage",
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


class SessionEventMessage(WireModel):
    """One session event, in the JSON form of `prime_jupyter.protocol.codec.event_to_wire`."""

    type: Literal["session_event"] = "session_event"
    event: dict[str, JsonValue]


class SessionReplacedMessage(WireModel):
    """The connection now shows another session (new, switched, forked): redraw from `snapshot`."""

    type: Literal["session_replaced"] = "session_replaced"
    snapshot: AttachSnapshot


ConnectionOutbound: TypeAlias = Annotated[
    SessionEventMessage
    | SessionReplacedMessage
    | ConnectedFrame
    | QuestionFrame
    | QuestionResolvedFrame
    | NotifyFrame
    | StatusFrame
    | WidgetFrame
    | ResyncRequiredFrame,
    Field(discriminator="type"),
]
