"""The stream vocabulary every provider speaks: `AssistantMessageEvent`.

A stream starts with `start`, then interleaves block events keyed by `content_index`, and ends with
exactly one `done` or `error`. Every event carries `partial`, the assistant message being built (the
same object throughout a stream, mutated in place; copy it if you keep it). These are plain slotted
dataclasses because one is made per delta: they must cost next to nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from prime_jupyter.ai.types import AssistantMessage, ToolCall

__all__ = [
    "AssistantMessageEvent",
    "DoneEvent",
    "ErrorEvent",
    "StartEvent",
    "TextDeltaEvent",
    "TextEndEvent",
    "TextStartEvent",
    "ThinkingDeltaEvent",
    "ThinkingEndEvent",
    "ThinkingStartEvent",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
]


@dataclass(slots=True, frozen=True)
class StartEvent:
    """The response began; `partial` is the assistant message the stream builds."""

    partial: AssistantMessage
    type: Literal["start"] = "start"


@dataclass(slots=True, frozen=True)
class TextStartEvent:
    """A text block opens at `content_index`."""

    content_index: int
    partial: AssistantMessage
    type: Literal["text_start"] = "text_start"


@dataclass(slots=True, frozen=True)
class TextDeltaEvent:
    """More text for the block at `content_index`."""

    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["text_delta"] = "text_delta"


@dataclass(slots=True, frozen=True)
class TextEndEvent:
    """The text block at `content_index` is complete: `content` is all of it."""

    content_index: int
    content: str
    partial: AssistantMessage
    type: Literal["text_end"] = "text_end"


@dataclass(slots=True, frozen=True)
class ThinkingStartEvent:
    """A thinking block opens at `content_index`."""

    content_index: int
    partial: AssistantMessage
    type: Literal["thinking_start"] = "thinking_start"


@dataclass(slots=True, frozen=True)
class ThinkingDeltaEvent:
    """More thinking for the block at `content_index`."""

    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclass(slots=True, frozen=True)
class ThinkingEndEvent:
    """The thinking block at `content_index` is complete: `content` is all of it."""

    content_index: int
    content: str
    partial: AssistantMessage
    type: Literal["thinking_end"] = "thinking_end"


@dataclass(slots=True, frozen=True)
class ToolCallStartEvent:
    """A tool call opens at `content_index` (its id and name are in `partial`)."""

    content_index: int
    partial: AssistantMessage
    type: Literal["toolcall_start"] = "toolcall_start"


@dataclass(slots=True, frozen=True)
class ToolCallDeltaEvent:
    """A piece of the arguments JSON; `partial.content[content_index].arguments` holds what parses so far."""

    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["toolcall_delta"] = "toolcall_delta"


@dataclass(slots=True, frozen=True)
class ToolCallEndEvent:
    """The tool call at `content_index` is complete, its arguments parsed."""

    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage
    type: Literal["toolcall_end"] = "toolcall_end"


@dataclass(slots=True, frozen=True)
class DoneEvent:
    """The stream ended normally; `message` is the final assistant message."""

    reason: Literal["stop", "length", "toolUse"]
    message: AssistantMessage
    type: Literal["done"] = "done"


@dataclass(slots=True, frozen=True)
class ErrorEvent:
    """The stream failed or was aborted; `error` is the final message with partial content and usage.

    `retryable` marks transient failures (429, 5xx, 529, a dropped stream); `retry_after_s` is the
    provider's `retry-after` when it sent one; `context_overflow` marks a prompt too long for the model.
    """

    reason: Literal["aborted", "error"]
    error: AssistantMessage
    retryable: bool = False
    retry_after_s: float | None = None
    context_overflow: bool = False
    type: Literal["error"] = "error"


AssistantMessageEvent: TypeAlias = (
    StartEvent
    | TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | DoneEvent
    | ErrorEvent
)
