"""Unified messages and content blocks shared by every provider.

Messages are pydantic models so transcripts validate on load and dump with camelCase keys
(the seed system's JSONL format). While a response streams, the provider mutates the blocks of
one partial `AssistantMessage` in place; once `done`/`error` is emitted the message is final.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidatorFunctionWrapHandler, field_validator
from pydantic.alias_generators import to_camel

__all__ = [
    "AssistantContent",
    "AssistantMessage",
    "Context",
    "Cost",
    "ImageContent",
    "Message",
    "StopReason",
    "TextContent",
    "ThinkingContent",
    "ToolCall",
    "ToolResultContent",
    "ToolResultMessage",
    "ToolSpec",
    "Usage",
    "UserContent",
    "UserMessage",
    "now_ms",
]


def now_ms() -> int:
    """Milliseconds since the epoch, the timestamp unit of messages."""
    return int(time.time() * 1000)


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class TextContent(_Model):
    type: Literal["text"] = "text"
    text: str
    text_signature: str | None = None


class ThinkingContent(_Model):
    type: Literal["thinking"] = "thinking"
    thinking: str
    thinking_signature: str | None = None
    redacted: bool = False


class ImageContent(_Model):
    type: Literal["image"] = "image"
    data: str  # base64
    mime_type: str


class ToolCall(_Model):
    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, JsonValue] = Field(default_factory=dict)


UserContent: TypeAlias = Annotated[TextContent | ImageContent, Field(discriminator="type")]
AssistantContent: TypeAlias = Annotated[TextContent | ThinkingContent | ToolCall, Field(discriminator="type")]
ToolResultContent: TypeAlias = Annotated[TextContent | ImageContent, Field(discriminator="type")]


class Cost(_Model):
    """Dollars spent, per token kind."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0


class Usage(_Model):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)


StopReason: TypeAlias = Literal["stop", "length", "toolUse", "error", "aborted"]


class UserMessage(_Model):
    role: Literal["user"] = "user"
    content: str | list[UserContent]
    timestamp: int = Field(default_factory=now_ms)

    def text(self) -> str:
        """The message's text with images left out."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(b.text for b in self.content if isinstance(b, TextContent))


class AssistantMessage(_Model):
    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent] = Field(default_factory=list)
    api: str
    provider: str
    model: str
    response_id: str | None = None
    usage: Usage = Field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    timestamp: int = Field(default_factory=now_ms)

    def text(self) -> str:
        """All text blocks joined, thinking and tool calls left out."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    def tool_calls(self) -> list[ToolCall]:
        return [b for b in self.content if isinstance(b, ToolCall)]


class ToolResultMessage(_Model):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[ToolResultContent] = Field(default_factory=list)
    details: JsonValue = None
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)

    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextContent))


Message: TypeAlias = Annotated[UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")]


class ToolSpec(_Model):
    """What a provider is told about a tool: name, description and a JSON Schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, JsonValue]


class Context(_Model):
    """Everything one model call sees. `messages` may be a `History` (`ai.history`)."""

    system_prompt: str | None = None
    messages: Sequence[Message] = Field(default_factory=list)
    tools: list[ToolSpec] = Field(default_factory=list)

    @field_validator("messages", mode="wrap")
    @classmethod
    def _keep_history(cls, value: object, handler: ValidatorFunctionWrapHandler) -> object:
        """A `History` is taken as it is: validating it would turn all its data into models."""
        from prime_jupyter.ai.history import History  # it builds on this module

        return value if isinstance(value, History) else handler(value)
