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
    "QuestionAsked",
    "QuestionResolved",
    "QueueUpdate",
    "SessionEvent",
    "SessionInfoChanged",
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
    type: Literal["agent_start"] = "agent_start"


@dataclass(slots=True, frozen=True)
class AgentEnd:
    messages: list[Message]
    type: Literal["agent_end"] = "agent_end"


@dataclass(slots=True, frozen=True)
class TurnStart:
    type: Literal["turn_start"] = "turn_start"


@dataclass(slots=True, frozen=True)
class TurnEnd:
    message: AssistantMessage
    tool_results: list[ToolResultMessage]
    type: Literal["turn_end"] = "turn_end"


@dataclass(slots=True, frozen=True)
class MessageStart:
    message: Message
    type: Literal["message_start"] = "message_start"


@dataclass(slots=True, frozen=True)
class MessageUpdate:
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
    tool_call_id: str
    tool_name: str
    args: dict[str, JsonValue]
    type: Literal["tool_execution_start"] = "tool_execution_start"


@dataclass(slots=True, frozen=True)
class ToolExecutionUpdate:
    tool_call_id: str
    tool_name: str
    args: dict[str, JsonValue]
    partial_result: ToolOutput
    type: Literal["tool_execution_update"] = "tool_execution_update"


@dataclass(slots=True, frozen=True)
class ToolExecutionEnd:
    tool_call_id: str
    tool_name: str
    result: ToolOutput
    is_error: bool
    type: Literal["tool_execution_end"] = "tool_execution_end"


@dataclass(slots=True, frozen=True)
class AutoRetryStart:
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str
    type: Literal["auto_retry_start"] = "auto_retry_start"


@dataclass(slots=True, frozen=True)
class AutoRetryEnd:
    success: bool
    attempt: int
    final_error: str | None = None
    type: Literal["auto_retry_end"] = "auto_retry_end"


CompactionReason: TypeAlias = Literal["manual", "threshold", "overflow"]


@dataclass(slots=True, frozen=True)
class CompactionStart:
    reason: CompactionReason
    type: Literal["compaction_start"] = "compaction_start"


@dataclass(slots=True, frozen=True)
class CompactionEnd:
    reason: CompactionReason
    summary: str | None
    tokens_before: int | None
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
    name: str | None
    type: Literal["session_info_changed"] = "session_info_changed"


@dataclass(slots=True, frozen=True)
class ThinkingLevelChanged:
    level: str
    type: Literal["thinking_level_changed"] = "thinking_level_changed"


@dataclass(slots=True, frozen=True)
class ModelChanged:
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
    id: str
    answer: QuestionAnswer | None = None
    cancelled: CancelReason | None = None
    type: Literal["question_resolved"] = "question_resolved"


@dataclass(slots=True, frozen=True)
class Notify:
    message: str
    level: Literal["info", "warning", "error"] = "info"
    type: Literal["notify"] = "notify"


@dataclass(slots=True, frozen=True)
class StatusChanged:
    key: str
    text: str | None
    type: Literal["status_changed"] = "status_changed"


@dataclass(slots=True, frozen=True)
class WidgetChanged:
    key: str
    lines: list[str] | None
    type: Literal["widget_changed"] = "widget_changed"


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
    | ModelChanged
    | QuestionAsked
    | QuestionResolved
    | Notify
    | StatusChanged
    | WidgetChanged
)
