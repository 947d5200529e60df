"""Chat messages as the panel shows them: a message is an ordered list of parts.

One `ChatMessage` per transcript message (user or assistant); its `id` is the transcript entry id, the
same id live frames end up with (`frames.py`). An assistant message has one part per content block, in
block order: text → `text`, thinking → `reasoning`, tool call → a tool part. Parts therefore keep the
order the model produced them in (text, then a tool call, then more text), never "text first, tools
appended" (upstream.md §11.5). A tool part joins the call with its result: input *and* output.

Tool part types follow the seed's `toPascalCase` rule (upstream.md §1.4) so renderers keyed on
`tool-IPython`, `tool-Bash`, `tool-Edit`, `tool-Read`, `tool-Write`, `tool-Thinking` keep working.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, TypeAlias

from pydantic import Discriminator, Field, JsonValue, Tag

from prime_jupyter.ai.types import StopReason, ToolResultContent
from prime_jupyter.protocol.wire import WireModel

__all__ = [
    "ChatMessage",
    "ChatPart",
    "ErrorPart",
    "ImagePart",
    "ReasoningPart",
    "TextPart",
    "ToolOutputData",
    "ToolPart",
    "ToolState",
    "to_pascal_case",
    "tool_part_type",
]

ToolState: TypeAlias = Literal["input-streaming", "input-available", "output-available", "output-error"]
"""`input-streaming` while the model writes the arguments; `input-available` once they are complete
(and while the tool runs: a running tool may already carry partial `output`); then `output-available`
or `output-error` when it finished."""


class TextPart(WireModel):
    type: Literal["text"] = "text"
    text: str


class ReasoningPart(WireModel):
    """The model's thinking, shown collapsed. `redacted` thinking has no readable text."""

    type: Literal["reasoning"] = "reasoning"
    text: str
    redacted: bool = False


class ImagePart(WireModel):
    """An image the user attached (base64 `data`)."""

    type: Literal["image"] = "image"
    mime_type: str
    data: str


class ErrorPart(WireModel):
    """Why an assistant message failed (its `stopReason` is `error`)."""

    type: Literal["error"] = "error"
    message: str
    title: str | None = None


class ToolOutputData(WireModel):
    """What a tool returned: `content` as the model saw it, `details` for front ends only (for the IPython
    tool, the cell's rich nbformat outputs; for Edit, the diff; whatever the tool put there)."""

    content: list[ToolResultContent] = Field(default_factory=list)
    details: JsonValue = None


class ToolPart(WireModel):
    """One tool call and, once it ran, its result; merged by `toolCallId`."""

    type: str = Field(pattern=r"^tool-")
    tool_call_id: str
    tool_name: str
    state: ToolState
    input: dict[str, JsonValue] = Field(default_factory=dict)
    output: ToolOutputData | None = None
    error_text: str | None = None


def _part_tag(value: object) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return "tool" if isinstance(kind, str) and kind.startswith("tool-") else str(kind)


ChatPart: TypeAlias = Annotated[
    Annotated[TextPart, Tag("text")]
    | Annotated[ReasoningPart, Tag("reasoning")]
    | Annotated[ImagePart, Tag("image")]
    | Annotated[ErrorPart, Tag("error")]
    | Annotated[ToolPart, Tag("tool")],
    Discriminator(_part_tag),
]


class ChatMessage(WireModel):
    """A user or assistant message; `id` is its transcript entry id (a live id only while it streams)."""

    id: str
    role: Literal["user", "assistant"]
    parts: list[ChatPart] = Field(default_factory=list)
    created_at: int | None = None
    """Milliseconds since the epoch."""
    stop_reason: StopReason | None = None
    provider: str | None = None
    model: str | None = None


_SPLIT = re.compile(r"[_\- ]+")


def to_pascal_case(name: str) -> str:
    """The seed's rule: split on `_`, `-`, space; `ipython` → `IPython`; an all-lowercase word of at most
    three letters → UPPERCASE; any other word gets an initial capital."""
    return "".join(_pascal_word(word) for word in _SPLIT.split(name) if word)


def _pascal_word(word: str) -> str:
    if word.lower() == "ipython":
        return "IPython"
    if word.islower() and word.isalpha() and len(word) <= 3:
        return word.upper()
    return word[0].upper() + word[1:]


def tool_part_type(tool_name: str) -> str:
    """`tool-<PascalName>`; MCP tools (`mcp__server__tool`) keep their name, as the seed's renderers expect."""
    if tool_name.startswith("mcp__"):
        return f"tool-{tool_name}"
    return f"tool-{to_pascal_case(tool_name)}"
