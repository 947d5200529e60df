"""Session events: what a running session tells its front ends (upstream.md §2.1-2.2).

The loop (`agent/`) and the session (`runtime/`) emit these; the connection seam carries them; the
server maps them to chat frames. They are slotted dataclasses, cheap enough to make one per streamed
delta; `codec.py` turns them into JSON. Messages inside are the `ai` pydantic models.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from pydantic import JsonValue

from prime_jupyter.ai.events import AssistantMessageEvent
from prime_jupyter.ai.types import AssistantMessage, ImageContent, Message, TextContent, ToolResultMessage
from prime_jupyter.protocol.questions import CancelReason, Question, QuestionAnswer

__all__ = [
    "AgentEnd",
    "AgentStart",
    "AutoRetryEnd",
    "AutoRetryStart",
    "CompactionEnd",
    "CompactionStart",
    "MessageEnd",
    "MessageStart",
    "MessageUpdate",
    "ModelChanged",
    "Notify",
    "PermissionModeChanged",
    "QuestionAsked",
    "QuestionResolved",
    "QueueUpdate",
    "SessionEvent",
    "SessionInfoChanged",
    "ShellExecutionEnd",
    "ShellExecutionOutput",
    "ShellExecutionStart",
    "StatusChanged",
    "ThinkingLevelChanged",
    "ToolExecutionEnd",
    "ToolExecutionStart",
    "ToolExecutionUpdate",
    "ToolOutput",
    "TurnEnd",
    "TurnStart",
    "WidgetChanged",
]


@dataclass(slots=True)
class ToolOutput:
    """A tool's result: content for the model, `details` for front ends only (never sent to the model)."""

    content: list[TextContent | ImageContent] = field(default_factory=list)
    details: JsonValue = None
    is_error: bool = False
    """A failure the model should see as one (a Python exception, a timeout) without the tool raising."""


@dataclass(slots=True, frozen=True)
class AgentStart:
    """A run begins (a prompt was accepted)."""

    type: Literal["agent_start"] = "agent_start"


@dataclass(slots=True, frozen=True)
class AgentEnd:
    """The run is over, the last event of it; `messages` are the ones it added."""

    messages: list[Message]
    type: Literal["agent_end"] = "agent_end"


@dataclass(slots=True, frozen=True)
class TurnStart:
    """A turn begins: one assistant response and the tool calls it makes."""

    type: Literal["turn_start"] = "turn_start"


@dataclass(slots=True, frozen=True)
class TurnEnd:
    """A turn is over: the assistant message and the results of its tool calls."""

    message: AssistantMessage
    tool_results: list[ToolResultMessage]
    type: Literal["turn_end"] = "turn_end"


@dataclass(slots=True, frozen=True)
class MessageStart:
    """A message enters the run (user, assistant or tool result); an assistant one then streams."""

    message: Message
    type: Literal["message_start"] = "message_start"


@dataclass(slots=True, frozen=True)
class MessageUpdate:
    """The assistant message streams: one provider event, with the message as built so far."""

    message: AssistantMessage
    assistant_message_event: AssistantMessageEvent
    type: Literal["message_update"] = "message_update"


@dataclass(slots=True, frozen=True)
class MessageEnd:
    """A message is final. `entry_id` is its transcript entry id once the session persisted it."""

    message: Message
    entry_id: str | None = None
    type: Literal["message_end"] = "message_end"


@dataclass(slots=True, frozen=True)
class ToolExecutionStart:
    """A tool starts running with these arguments."""

    tool_call_id: str
    tool_name: str
    args: dict[str, JsonValue]
    type: Literal["tool_execution_start"] = "tool_execution_start"


@dataclass(slots=True, frozen=True)
class ToolExecutionUpdate:
    """A running tool's output so far (accumulated, not a delta)."""

    tool_call_id: str
    tool_name: str
    args: dict[str, JsonValue]
    partial_result: ToolOutput
    type: Literal["tool_execution_update"] = "tool_execution_update"


@dataclass(slots=True, frozen=True)
class ToolExecutionEnd:
    """A tool finished; `is_error` when the model is to see a failure."""

    tool_call_id: str
    tool_name: str
    result: ToolOutput
    is_error: bool
    type: Literal["tool_execution_end"] = "tool_execution_end"


@dataclass(slots=True, frozen=True)
class AutoRetryStart:
    """A failed model call is retried after `delay_ms`."""

    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str
    type: Literal["auto_retry_start"] = "auto_retry_start"


@dataclass(slots=True, frozen=True)
class AutoRetryEnd:
    """Retrying is over: it worked, or `final_error` says why not."""

    success: bool
    attempt: int
    final_error: str | None = None
    type: Literal["auto_retry_end"] = "auto_retry_end"


CompactionReason: TypeAlias = Literal["manual", "threshold", "overflow"]


@dataclass(slots=True, frozen=True)
class CompactionStart:
    """The transcript is being compacted into a summary."""

    reason: CompactionReason
    type: Literal["compaction_start"] = "compaction_start"


@dataclass(slots=True, frozen=True)
class CompactionEnd:
    """Compaction is over: the summary, or why there is none. `summary` and `tokens_before` default to None:
    the wire leaves None out, and a client that required them dropped a failed compaction's end (an
    attached terminal stayed at "Compacting the context…")."""

    reason: CompactionReason
    summary: str | None = None
    tokens_before: int | None = None
    aborted: bool = False
    will_retry: bool = False
    error_message: str | None = None
    type: Literal["compaction_end"] = "compaction_end"


@dataclass(slots=True, frozen=True)
class QueueUpdate:
    """The pending steering and follow-up messages (upstream's `session_action_update`)."""

    steering: list[str]
    follow_up: list[str]
    type: Literal["queue_update"] = "queue_update"


@dataclass(slots=True, frozen=True)
class SessionInfoChanged:
    """The session was renamed (`None`: the name was cleared)."""

    name: str | None
    type: Literal["session_info_changed"] = "session_info_changed"


@dataclass(slots=True, frozen=True)
class ThinkingLevelChanged:
    """The thinking level changed."""

    level: str
    type: Literal["thinking_level_changed"] = "thinking_level_changed"


@dataclass(slots=True, frozen=True)
class PermissionModeChanged:
    """The session's permission mode changed (`ask`, `accept-edits`, `plan`, `auto`)."""

    mode: str
    type: Literal["permission_mode_changed"] = "permission_mode_changed"


@dataclass(slots=True, frozen=True)
class ModelChanged:
    """The session's model changed."""

    provider: str
    model_id: str
    type: Literal["model_changed"] = "model_changed"


@dataclass(slots=True, frozen=True)
class QuestionAsked:
    """The session asks its user something; it stays pending until `QuestionResolved`."""

    question: Question
    type: Literal["question_asked"] = "question_asked"


@dataclass(slots=True, frozen=True)
class QuestionResolved:
    """A pending question is settled: answered (`None`: dismissed) or cancelled."""

    id: str
    answer: QuestionAnswer | None = None
    cancelled: CancelReason | None = None
    type: Literal["question_resolved"] = "question_resolved"


@dataclass(slots=True, frozen=True)
class Notify:
    """A message for the user, shown and forgotten."""

    message: str
    level: Literal["info", "warning", "error"] = "info"
    type: Literal["notify"] = "notify"


@dataclass(slots=True, frozen=True)
class StatusChanged:
    """A status line under `key` is set (`None`: removed)."""

    key: str
    text: str | None
    type: Literal["status_changed"] = "status_changed"


@dataclass(slots=True, frozen=True)
class WidgetChanged:
    """A widget's lines under `key` are set (`None`: removed)."""

    key: str
    lines: list[str] | None
    type: Literal["widget_changed"] = "widget_changed"


@dataclass(slots=True, frozen=True)
class ShellExecutionStart:
    """The user's shell command (`!cmd`; `!!cmd` keeps it out of the model's context) starts running in the
    session's directory. `execution_id` names it in the output and end events (the client that asked for
    it may choose it, to know its own command among every client's)."""

    execution_id: str
    command: str
    include_in_context: bool = True
    type: Literal["shell_execution_start"] = "shell_execution_start"


@dataclass(slots=True, frozen=True)
class ShellExecutionOutput:
    """Output the running command printed since the last one (a chunk, not the output so far; a few a
    second at most). When a burst was larger than a chunk may be (16 KB), `chunk` is its end and `skipped`
    counts the bytes of output left out before it."""

    execution_id: str
    chunk: str
    skipped: int = 0
    type: Literal["shell_execution_output"] = "shell_execution_output"


@dataclass(slots=True, frozen=True)
class ShellExecutionEnd:
    """The command ended, as the transcript keeps it (`bashExecution`): `output` is the tail kept (all of it,
    unless `truncated`: then the whole output is in `full_output_path`, on the machine that ran it);
    `exit_code` is None when it was cancelled. `entry_id` is its transcript entry; `error` says why a
    command did not run or was stopped without an end of its own (nothing is kept then)."""

    execution_id: str
    command: str
    output: str
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    include_in_context: bool = True
    entry_id: str | None = None
    error: str | None = None
    type: Literal["shell_execution_end"] = "shell_execution_end"


SessionEvent: TypeAlias = (
    AgentStart
    | AgentEnd
    | TurnStart
    | TurnEnd
    | MessageStart
    | MessageUpdate
    | MessageEnd
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd
    | AutoRetryStart
    | AutoRetryEnd
    | CompactionStart
    | CompactionEnd
    | QueueUpdate
    | SessionInfoChanged
    | ThinkingLevelChanged
    | PermissionModeChanged
    | ModelChanged
    | QuestionAsked
    | QuestionResolved
    | Notify
    | StatusChanged
    | WidgetChanged
    | ShellExecutionStart
    | ShellExecutionOutput
    | ShellExecutionEnd
)
