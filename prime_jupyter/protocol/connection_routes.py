"""Requests and responses of the connection routes, under `<base_url>prime/api/connection/`.

| route | request | response |
|---|---|---|
| `POST attach` | `AttachRequest` | `AttachResponse`; 409 when the client's protocol is incompatible |
| `POST command` | `CommandRequest` | the command's result model (`snapshot.COMMAND_RESULTS`), header `X-Prime-Cursor` |
| `POST wait` | `WaitRequest` | `WaitResult` once the session is idle |
| `GET events?sessionId=&cursor=` | | SSE of `ConnectionOutbound`: `connected`, then session events with `id: <seq>` |
| `POST run` | `RunRequest` | SSE of `RunOutbound`: `run_started`, the run's events, `run_ended` (capability `run`) |

Failures are an HTTP status with an `ErrorBody` (busy 409, unknown session 404, bad request 400).
`X-Prime-Cursor` (and `WaitResult.cursor`) is the sequence number of the newest session event when the
answer was made: a client that has seen the stream up to it has seen every event the command caused.

`run` is a whole headless run in one request (`jupyter prime attach -p`): it attaches (to `sessionId`, or
to a new session in `cwd`, as `attach` does), starts the prompt (a refusal, e.g. busy, is an HTTP status
as for `command`) and answers with that run's stream, which ends once the session is idle again. A
client that goes away leaves the run going, as with every route.

The events stream (`ConnectionOutbound`) carries sequenced session events in their `codec.py` JSON form,
a new snapshot when the session was replaced, and the question and UI frames the chat stream uses too.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field, JsonValue

from prime_jupyter.ai.types import ImageContent
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
from prime_jupyter.protocol.paths import CONNECTION_PATH, CURSOR_HEADER
from prime_jupyter.protocol.snapshot import AttachSnapshot, ConnectionState
from prime_jupyter.protocol.wire import WireModel

__all__ = [
    "CONNECTION_PATH",
    "CURSOR_HEADER",
    "AttachRequest",
    "AttachResponse",
    "CommandRequest",
    "ConnectionOutbound",
    "RunEndedMessage",
    "RunOutbound",
    "RunRequest",
    "RunStartedMessage",
    "SessionEventMessage",
    "SessionReplacedMessage",
    "WaitRequest",
    "WaitResult",
]


class AttachRequest(WireModel):
    """Attach to a session (by id or unique id prefix), or create one in `cwd` when no id is given.

    `model`, `thinkingLevel` and `permissionMode` apply to a session this request creates."""

    session_id: str | None = None
    cwd: str | None = None
    model: ModelRef | None = None
    thinking_level: str | None = None
    permission_mode: str | None = None
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


class RunRequest(WireModel):
    """`POST run`: `message` (with `images`) as a prompt in the session `attach` would attach to. `model`,
    `thinkingLevel` and `permissionMode` apply to a session this request creates, and are switched to on an
    existing one (`jupyter prime -p` asks for `auto`: nobody answers approvals there)."""

    session_id: str | None = None
    cwd: str | None = None
    model: ModelRef | None = None
    thinking_level: str | None = None
    permission_mode: str | None = None
    message: str
    images: list[ImageContent] = Field(default_factory=list)
    client_protocol_version: int
    client_schema_revision: int = 0


class RunStartedMessage(WireModel):
    """The first message of a `run` stream: the server, and the session the run started in (`header`
    is its transcript's header line); the session events after `cursor` are this run's."""

    type: Literal["run_started"] = "run_started"
    version: str
    protocol_version: int
    schema_revision: int
    capabilities: list[str]
    session_id: str
    header: dict[str, JsonValue] = Field(default_factory=dict)
    cursor: int


class RunEndedMessage(WireModel):
    """The last message of a `run` stream: the session is idle; `cursor` is its newest event."""

    type: Literal["run_ended"] = "run_ended"
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


RunOutbound: TypeAlias = Annotated[
    RunStartedMessage | SessionEventMessage | RunEndedMessage,
    Field(discriminator="type"),
]
"""The messages of a `run` stream, in that order: one `run_started`, the run's session events (SSE
`id: <seq>`), one `run_ended`. A stream that ends without `run_ended` lost its session (deleted, the
server stopping); the run may have gone on."""
