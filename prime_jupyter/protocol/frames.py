"""Chat frames: what the panel reads, on the `POST chat` NDJSON stream and the `chat/events` SSE stream.

Every frame is a JSON object discriminated by `type`; the same bare frames travel on both streams (SSE
adds only its `id: <seq>` line, never an envelope; upstream.md §11.1). The event mapper
(`prime_jupyter.protocol.mapper`) makes them from session events; the server adds `connected`,
`resync-required`, the question frames and the UI frames (`notify`, `status`, `widget`).

**A run.** `start{runId}` (the real id, from the runtime's `agent_start`) ... `done{runId, stopReason}`.
A `POST chat` stream is exactly one run: from its `start` to its `done`; a request that could not start
a run (busy, unknown model, no API key) gets a single `error` frame instead. A failed model call does
not produce `error`: its message ends with `stopReason: "error"` and an error part, and `done` says so.
A steering or follow-up `POST chat` joins the run going on. What happens after `done` (a compaction,
the run that retries after a context overflow, another client's run) reaches clients through SSE,
which carries every frame of the session, `start` included.

**Ids.** A message's id is its transcript entry id, the id cold hydration (`chat/session`) gives it.
An assistant message only gets its entry id when it is persisted, at its end; while it streams it has
a *live* id (`message-start`). `message-end{messageId: <live id>, message}` carries the final message
under its entry id: clients replace the live message with it. Tool frames that follow use the entry id.
User messages appear once persisted, as `message-end` with `messageId == message.id`; the sender
replaces its optimistic copy with the first user `message-end` after its `start`, and that is also how
a message sent by another client (or a steering message taken into the run) shows up.

**Order.** Part frames carry `index`, the content block index inside the assistant message, which is
also the part's position in `ChatMessage.parts`. Text, reasoning and tool parts thus stay in the order
the model produced them, and hydration puts them in the same places.

**Thinking.** The seed never forwarded raw thinking (its "privacy invariant", upstream.md §2.3). That
rule protects a hosted multi-user product; prime-jupyter runs locally for one user who owns the API
key, the kernel and the transcript file that already stores the thinking verbatim. Hiding it from its
owner protects nobody and takes away the best explanation of what the agent is doing, so thinking is
forwarded as `reasoning-delta` into a `reasoning` part that clients show collapsed.

**Tool input while it streams** comes as `tool-input-delta` chunks of the raw argument JSON (linear in
size; resending the parsed arguments per chunk would be quadratic). The complete arguments arrive with
the `tool` frame in state `input-available`. A `tool` frame always carries the whole part (merged by
`toolCallId`); `output` on a running tool is the accumulated partial output, not a delta.
"""

from __future__ import annotations

import functools
from typing import Annotated, Literal, TypeAlias, get_args

from pydantic import Field, TypeAdapter, ValidationError

from prime_jupyter.ai.types import StopReason, Usage
from prime_jupyter.protocol.parts import ChatMessage, ToolPart
from prime_jupyter.protocol.questions import CancelReason, Question, QuestionAnswer
from prime_jupyter.protocol.wire import WireModel

__all__ = [
    "FRAME_TYPES",
    "ChatFrame",
    "CompactionFrame",
    "ConnectedFrame",
    "DoneFrame",
    "ErrorFrame",
    "ErrorReason",
    "MessageEndFrame",
    "MessageStartFrame",
    "ModelFrame",
    "NotifyFrame",
    "QuestionFrame",
    "QuestionResolvedFrame",
    "QueueFrame",
    "ReasoningDeltaFrame",
    "ResyncRequiredFrame",
    "RetryFrame",
    "SessionInfoFrame",
    "ShellFrame",
    "StartFrame",
    "StatusFrame",
    "TextDeltaFrame",
    "ThinkingLevelFrame",
    "ToolFrame",
    "ToolInputDeltaFrame",
    "UsageFrame",
    "WidgetFrame",
    "parse_frame",
]


class StartFrame(WireModel):
    type: Literal["start"] = "start"
    run_id: str
    session_id: str


class MessageStartFrame(WireModel):
    """An assistant message starts streaming under a live id."""

    type: Literal["message-start"] = "message-start"
    message_id: str
    role: Literal["assistant"] = "assistant"
    created_at: int | None = None


class TextDeltaFrame(WireModel):
    type: Literal["text-delta"] = "text-delta"
    message_id: str
    index: int
    delta: str


class ReasoningDeltaFrame(WireModel):
    type: Literal["reasoning-delta"] = "reasoning-delta"
    message_id: str
    index: int
    delta: str


class ToolInputDeltaFrame(WireModel):
    """A chunk of a tool call's argument JSON as the model writes it."""

    type: Literal["tool-input-delta"] = "tool-input-delta"
    message_id: str
    index: int
    tool_call_id: str
    delta: str


class ToolFrame(WireModel):
    """The whole current state of one tool part; replace the part with the same `toolCallId`."""

    type: Literal["tool"] = "tool"
    message_id: str
    index: int | None = None
    part: ToolPart


class MessageEndFrame(WireModel):
    """A message is final and persisted: replace the message `messageId` (a live id) with `message`."""

    type: Literal["message-end"] = "message-end"
    message_id: str
    message: ChatMessage


class UsageFrame(WireModel):
    """Tokens and cost of one assistant message, the session's running total, and how full the context is."""

    type: Literal["usage"] = "usage"
    message_id: str
    usage: Usage
    total: Usage
    context_tokens: int
    context_window: int | None = None


class DoneFrame(WireModel):
    type: Literal["done"] = "done"
    run_id: str
    session_id: str
    stop_reason: StopReason
    error_message: str | None = None


ErrorReason: TypeAlias = Literal["busy", "not-found", "invalid", "no-api-key", "unknown-model", "internal"]


class ErrorFrame(WireModel):
    """A request could not start its run (or the server failed mid-stream); ends a `POST chat` stream."""

    type: Literal["error"] = "error"
    message: str
    reason: ErrorReason = "internal"
    retryable: bool = False
    run_id: str | None = None


class RetryFrame(WireModel):
    """`start`: attempt, maxAttempts, delayMs, errorMessage. `end`: attempt, success, finalError?."""

    type: Literal["retry"] = "retry"
    phase: Literal["start", "end"]
    attempt: int
    max_attempts: int | None = None
    delay_ms: int | None = None
    error_message: str | None = None
    success: bool | None = None
    final_error: str | None = None


class CompactionFrame(WireModel):
    """`start`: reason. `end`: reason, aborted, willRetry, and errorMessage or summary/tokensBefore."""

    type: Literal["compaction"] = "compaction"
    phase: Literal["start", "end"]
    reason: Literal["manual", "threshold", "overflow"]
    aborted: bool | None = None
    will_retry: bool | None = None
    error_message: str | None = None
    summary: str | None = None
    tokens_before: int | None = None


class ShellFrame(WireModel):
    """The user's shell command (`!cmd` in the terminal app), run in the session's directory, as it runs.

    `start`: executionId, command, includeInContext. `output`: executionId, chunk (printed since the last
    `output`; `skipped` bytes before it were left out of a burst too large to send). `end`:
    executionId, command, output (the tail the transcript keeps), exitCode (absent: cancelled),
    cancelled, truncated, fullOutputPath, entryId, or `error` when it could not run."""

    type: Literal["shell"] = "shell"
    phase: Literal["start", "output", "end"]
    execution_id: str
    command: str | None = None
    include_in_context: bool | None = None
    chunk: str | None = None
    skipped: int | None = None
    output: str | None = None
    exit_code: int | None = None
    cancelled: bool | None = None
    truncated: bool | None = None
    full_output_path: str | None = None
    entry_id: str | None = None
    error: str | None = None


class QueueFrame(WireModel):
    type: Literal["queue"] = "queue"
    steering: list[str] = Field(default_factory=list)
    follow_up: list[str] = Field(default_factory=list)


class QuestionFrame(Question):
    type: Literal["question"] = "question"


class QuestionResolvedFrame(WireModel):
    """A question is no longer pending: `answer` is set, or `cancelled` says why not."""

    type: Literal["question-resolved"] = "question-resolved"
    id: str
    answer: QuestionAnswer | None = None
    cancelled: CancelReason | None = None


class NotifyFrame(WireModel):
    type: Literal["notify"] = "notify"
    level: Literal["info", "warning", "error"] = "info"
    message: str


class StatusFrame(WireModel):
    """A keyed status line; `text` absent or null clears it."""

    type: Literal["status"] = "status"
    key: str
    text: str | None = None


class WidgetFrame(WireModel):
    """A keyed block of lines; `lines` absent or null removes it."""

    type: Literal["widget"] = "widget"
    key: str
    lines: list[str] | None = None


class SessionInfoFrame(WireModel):
    type: Literal["session-info"] = "session-info"
    name: str | None = None


class ModelFrame(WireModel):
    type: Literal["model"] = "model"
    provider: str
    id: str
    context_window: int | None = None


class ThinkingLevelFrame(WireModel):
    type: Literal["thinking-level"] = "thinking-level"
    level: str


class ResyncRequiredFrame(WireModel):
    """Refetch `chat/session`: the SSE cursor fell out of the ring, or the history changed (tree, fork)."""

    type: Literal["resync-required"] = "resync-required"
    reason: Literal["cursor-expired", "history-changed"] = "cursor-expired"


class ConnectedFrame(WireModel):
    """First frame of an SSE connection (no `id:`); `cursor` is the newest sequence number."""

    type: Literal["connected"] = "connected"
    session_id: str
    protocol_version: int
    schema_revision: int
    capabilities: list[str] = Field(default_factory=list)
    cursor: int = 0


ChatFrame: TypeAlias = Annotated[
    StartFrame
    | MessageStartFrame
    | TextDeltaFrame
    | ReasoningDeltaFrame
    | ToolInputDeltaFrame
    | ToolFrame
    | MessageEndFrame
    | UsageFrame
    | DoneFrame
    | ErrorFrame
    | RetryFrame
    | CompactionFrame
    | ShellFrame
    | QueueFrame
    | QuestionFrame
    | QuestionResolvedFrame
    | NotifyFrame
    | StatusFrame
    | WidgetFrame
    | SessionInfoFrame
    | ModelFrame
    | ThinkingLevelFrame
    | ResyncRequiredFrame
    | ConnectedFrame,
    Field(discriminator="type"),
]

FRAME_TYPES: frozenset[str] = frozenset(m.model_fields["type"].default for m in get_args(get_args(ChatFrame)[0]))


def parse_frame(data: str | bytes) -> ChatFrame | None:
    """One frame from its JSON; None for a frame type this version does not know (a newer server may
    send those, and clients skip them). Malformed JSON or a known type with bad fields raises."""
    try:
        return _chat_frame().validate_json(data)
    except ValidationError as exc:
        if any(err["type"] == "union_tag_invalid" for err in exc.errors()):
            return None
        raise


@functools.cache
def _chat_frame() -> TypeAdapter[ChatFrame]:
    """The validator of every frame, built when a frame is first parsed: building it costs more than the
    rest of this module, and most processes that import the frames never parse one."""
    return TypeAdapter(ChatFrame)
