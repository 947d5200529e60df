"""The view state of one session: what a front end draws, as immutable values.

The Python twin of the panel's `ViewState`, `MessageView`, `PartView`, `ToolView` and `Notice`
(`labextension/src/model.ts`, `messages.ts`, `notices.ts`), field for field in snake_case. Every value is
a frozen dataclass or a tuple: a fold step returns a new state in which only what changed is new, so a
renderer can compare identities to find what to redraw (the unchanged messages are the same objects).

Text that grows by deltas (text and reasoning parts, a tool call's argument JSON while the model writes
it) is a `Text`, not a `str`: appending a delta to a `str` copies the whole text, which makes a long
answer quadratic to fold (20,000 deltas of 40 characters copy 8 GB), while `Text + delta` is O(1).
Read it with `str(...)`, or through the `text` / `draft` properties of the parts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from pydantic import JsonValue

from prime_jupyter.ai.types import StopReason, Usage
from prime_jupyter.protocol.common import ModelRef
from prime_jupyter.protocol.parts import ToolOutputData, ToolState
from prime_jupyter.protocol.questions import Question

__all__ = [
    "MAX_NOTIFY",
    "ErrorView",
    "ImageView",
    "MessageView",
    "Notice",
    "NoticeLevel",
    "PartView",
    "ReasoningView",
    "ResyncReason",
    "Text",
    "TextView",
    "ToolView",
    "ViewState",
    "empty_state",
]

MAX_NOTIFY = 5
"""How many `notify` notices are kept (model.ts `MAX_NOTIFY`)."""

NoticeLevel: TypeAlias = Literal["info", "warning", "error"]
ResyncReason: TypeAlias = Literal["cursor-expired", "history-changed"]


class Text:
    """A string that grows by appending, immutable to everyone who holds it.

    Versions of one text share an append-only list of chunks; each version knows how many chunks are
    its own, so `old + delta` appends to the shared list when `old` is the newest version (O(1)) and
    copies the list only when an older version is extended (a fork, which folds never make). `str()`
    joins once and remembers it.
    """

    __slots__ = ("_chunks", "_count", "_value")

    def __init__(self, value: str = "") -> None:
        self._chunks: list[str] = [value] if value else []
        self._count = len(self._chunks)
        self._value: str | None = value

    def __add__(self, delta: str) -> Text:
        chunks = self._chunks if len(self._chunks) == self._count else self._chunks[: self._count]
        chunks.append(delta)
        grown = Text.__new__(Text)
        grown._chunks, grown._count, grown._value = chunks, len(chunks), None
        return grown

    def __str__(self) -> str:
        if self._value is None:
            self._value = "".join(self._chunks[: self._count])
        return self._value

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Text | str):
            return str(self) == str(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))

    def __len__(self) -> int:
        return len(str(self))

    def __repr__(self) -> str:
        return f"Text({str(self)!r})"


@dataclass(frozen=True, slots=True)
class TextView:
    """A text part."""

    body: Text
    type: Literal["text"] = "text"

    @property
    def text(self) -> str:
        return str(self.body)


@dataclass(frozen=True, slots=True)
class ReasoningView:
    """The model's thinking (shown collapsed); `redacted` thinking has no readable text."""

    body: Text
    redacted: bool = False
    type: Literal["reasoning"] = "reasoning"

    @property
    def text(self) -> str:
        return str(self.body)


@dataclass(frozen=True, slots=True)
class ImageView:
    """An image the user attached (base64 `data`)."""

    mime_type: str
    data: str
    type: Literal["image"] = "image"


@dataclass(frozen=True, slots=True)
class ErrorView:
    """Why an assistant message failed."""

    message: str
    title: str | None = None
    type: Literal["error"] = "error"


@dataclass(frozen=True, slots=True)
class ToolView:
    """A tool call joined with its result (`type` is `tool-<Name>`), plus the raw argument JSON typed so
    far (`draft`) while the model is still writing it: model.ts's `ToolView`."""

    type: str
    tool_call_id: str
    tool_name: str
    state: ToolState
    input: Mapping[str, JsonValue] = field(default_factory=dict)
    output: ToolOutputData | None = None
    error_text: str | None = None
    draft_body: Text | None = None

    @property
    def draft(self) -> str | None:
        return None if self.draft_body is None else str(self.draft_body)


PartView: TypeAlias = TextView | ReasoningView | ImageView | ErrorView | ToolView


@dataclass(frozen=True, slots=True)
class MessageView:
    """One message as front ends show it.

    `key` is the first id the message had and never changes, although `id` does once: the live id of a
    streaming assistant message becomes its transcript entry id at `message-end`, and the local id of an
    optimistic copy (`pending`) becomes the entry id the server gave it. Render by `key`."""

    key: str
    id: str
    role: Literal["user", "assistant"]
    parts: tuple[PartView, ...] = ()
    created_at: int | None = None
    stop_reason: StopReason | None = None
    model: str | None = None
    streaming: bool = False
    """Deltas are still arriving."""
    pending: bool = False
    """An optimistic copy of a message this client sent, not yet confirmed by the server."""
    usage: Usage | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    """A line under the conversation; notices with the same `key` (`retry`, `compaction`, `error`)
    replace each other. `action="retry"` offers to send the last message again."""

    key: str
    level: NoticeLevel
    text: str
    action: Literal["retry"] | None = None


@dataclass(frozen=True, slots=True)
class ViewState:
    """What a front end shows of one session (model.ts `ViewState`). The default is no session at all."""

    session_id: str | None = None
    name: str | None = None
    messages: tuple[MessageView, ...] = ()
    run_id: str | None = None
    """The run going on, if any."""
    steering: tuple[str, ...] = ()
    follow_up: tuple[str, ...] = ()
    questions: tuple[Question, ...] = ()
    """Pending questions, oldest first."""
    notices: tuple[Notice, ...] = ()
    statuses: Mapping[str, str] = field(default_factory=dict)
    widgets: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    usage: Usage | None = None
    """What the session's assistant messages cost so far."""
    context_tokens: int | None = None
    context_window: int | None = None
    model: ModelRef | None = None
    thinking_level: str | None = None
    capabilities: tuple[str, ...] = ()
    resync: ResyncReason | None = None
    """Set by `resync-required`: the owner must refetch the session."""
    notified: int = 0
    """How many `notify` frames were seen: gives each its own notice key."""


def empty_state(session_id: str | None = None) -> ViewState:
    """The state of a session before anything is known of it."""
    return ViewState(session_id=session_id)
