"""Requests and responses of the chat routes (under `<base_url>prime/api/`).

| route | request | response |
|---|---|---|
| `GET info` | | `InfoResponse` |
| `POST chat/new` | `ChatNewRequest` | `ChatNewResponse` |
| `POST chat` | `ChatRequest` | NDJSON `ChatFrame`s of the run it started, `start` … `done`; or one `error` |
| `GET chat/events?sessionId=` | `Last-Event-ID` / `lastEventId` | SSE: `connected`, then frames with `id: <seq>` |
| `GET chat/session?sessionId=` | | `ChatSessionResponse` (lossless hydration) |
| `POST chat/question` | `QuestionAnswerRequest` | `OkResponse`; 404 when the question is not pending |
| `POST chat/abort` | `SessionRequest` | `OkResponse` |
| `GET chat/sessions` | | `SessionsResponse` |
| `PATCH chat/sessions` | `RenameSessionRequest` | `OkResponse` |
| `DELETE chat/sessions` | `SessionRequest` | `OkResponse` |
| `GET chat/models` | | `ModelsResponse` |
| `POST chat/model` | `SetModelRequest` | `OkResponse` |
| `POST chat/command` | `ChatCommandRequest` (`chat_commands.py`) | `ChatCommandResponse` |

Any failure before a response body starts is an HTTP status with an `ErrorBody`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from prime_jupyter.ai.types import Usage
from prime_jupyter.protocol.common import ModelRef, SessionName, SessionSummary
from prime_jupyter.protocol.frames import ErrorReason
from prime_jupyter.protocol.hydration import LiveRun
from prime_jupyter.protocol.parts import ChatMessage
from prime_jupyter.protocol.questions import Question, QuestionAnswer
from prime_jupyter.protocol.snapshot import RunningShell
from prime_jupyter.protocol.wire import WireModel

__all__ = [
    "ChatNewRequest",
    "ChatNewResponse",
    "ChatRequest",
    "ChatSessionResponse",
    "CommandEntry",
    "CommandsResponse",
    "ErrorBody",
    "ImageInput",
    "InfoResponse",
    "KernelStatus",
    "ModelInfo",
    "ModelRef",
    "ModelsResponse",
    "OkResponse",
    "QuestionAnswerRequest",
    "RenameSessionRequest",
    "SeedMessage",
    "SessionRequest",
    "SessionSummary",
    "SessionsResponse",
    "SetModelRequest",
]


class KernelStatus(WireModel):
    """Whether a session here can get a kernel (`ready`: its spec exists and the latest prewarm did not
    fail; else `reason`), and how many session kernels are `starting` and `running` right now."""

    ready: bool
    reason: str | None = None
    starting: int = 0
    running: int = 0


class InfoResponse(WireModel):
    """What a client checks first: versions (see `version.py`), capabilities, whether kernels can start."""

    version: str
    protocol_version: int
    schema_revision: int
    capabilities: list[str]
    kernel: KernelStatus


class ErrorBody(WireModel):
    message: str
    reason: ErrorReason = "internal"


class OkResponse(WireModel):
    ok: Literal[True] = True
    session_id: str | None = None


class SeedMessage(WireModel):
    """A message a new session starts with (capability `seed-messages`)."""

    role: Literal["user", "assistant"]
    text: str


class ChatNewRequest(WireModel):
    cwd: str | None = None
    model: ModelRef | None = None
    thinking_level: str | None = None
    permission_mode: str | None = None
    """`ask`, `accept-edits`, `plan` or `auto` (capability `permissions`); None: the server's default. A
    mode the server forbids answers 403 naming the allowed ones."""
    seed_messages: list[SeedMessage] = Field(default_factory=list)
    notebook_path: str | None = None
    """Tie the session to this notebook (relative to `cwd`): its `ipython` tool runs in the notebook's
    own kernel (capability `notebook-sessions`)."""


class ChatNewResponse(WireModel):
    session: SessionSummary
    messages: list[ChatMessage] = Field(default_factory=list)
    model: ModelRef | None = None
    """The model the new session runs on (absent from a server before schema revision 11)."""
    thinking_level: str | None = None
    """The thinking level it runs at, which no frame announces (absent before schema revision 11)."""


class ImageInput(WireModel):
    """An image sent with a message (capability `images`); `data` is base64."""

    mime_type: str
    data: str


class ChatRequest(WireModel):
    """Send a message. While a run is going, `streamingBehavior` queues it instead (without it: `busy`)."""

    session_id: str
    message: str
    images: list[ImageInput] = Field(default_factory=list)
    streaming_behavior: Literal["steer", "followUp"] | None = None
    model: ModelRef | None = None
    thinking_level: str | None = None


class ChatSessionResponse(WireModel):
    """A session as of `cursor` (the newest frame sequence): follow `chat/events?lastEventId=<cursor>` and
    nothing is missed or seen twice. `messages` already include `live` (`hydration.apply_live`)."""

    session: SessionSummary
    messages: list[ChatMessage]
    cursor: int = 0
    live: LiveRun | None = None
    steering: list[str] = Field(default_factory=list)
    follow_up: list[str] = Field(default_factory=list)
    pending_questions: list[Question] = Field(default_factory=list)
    model: ModelRef | None = None
    thinking_level: str | None = None
    usage: Usage | None = None
    """Everything the session's assistant messages cost so far."""
    context_tokens: int | None = None
    context_window: int | None = None
    running_shells: list[RunningShell] = Field(default_factory=list)
    """The user's shell commands running as of `cursor`, with the end of their output so far; their
    `shell` frames follow it (absent from a server before schema revision 8)."""


class SessionRequest(WireModel):
    session_id: str


class QuestionAnswerRequest(WireModel):
    """Answer a pending question; no `answer` dismisses it (the asker sees `dismissed`, not `false`)."""

    session_id: str
    question_id: str
    answer: QuestionAnswer | None = None


class RenameSessionRequest(WireModel):
    session_id: str
    name: SessionName


class SessionsResponse(WireModel):
    sessions: list[SessionSummary]


class ModelInfo(WireModel):
    provider: str
    id: str
    name: str
    reasoning: bool = False
    images: bool = False
    context_window: int
    max_tokens: int
    thinking_levels: list[str] = Field(default_factory=list)
    available: bool = True
    """Whether an API key is configured for its provider."""


class ModelsResponse(WireModel):
    models: list[ModelInfo]
    current: ModelRef | None = None
    thinking_level: str | None = None
    """The thinking level of `current`: the named session's, or the one a new session gets (absent from a
    server before schema revision 11, or when the default model does not resolve)."""


class CommandEntry(WireModel):
    """One slash command: `name` without the slash, a one-line description, an argument hint, and where it
    comes from (`builtin`, `template`, `skill` or `extension`)."""

    name: str
    description: str
    arguments: str = ""
    source: str = "builtin"


class CommandsResponse(WireModel):
    """`GET chat/commands`: the commands a session (or a new one in the root) offers (capability `commands`)."""

    commands: list[CommandEntry]


class SetModelRequest(WireModel):
    session_id: str
    model: ModelRef
    thinking_level: str | None = None
