"""One message of the conversation, drawn from its `MessageView` in the view state.

A message is redrawn only when the view state holds a new `MessageView` for it (states share what did
not change). Each text part streams through Textual's `MarkdownStream` while the message streams (only
the new text is written; fragments that come faster than the screen draws are merged); thinking sits in
a collapsed block; each tool part is a `ToolCard`, kept by its tool-call id.
"""

from __future__ import annotations

from typing import TypeVar

from textual.containers import Vertical
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from prime_jupyter.protocol.view import ErrorView, ImageView, MessageView, ReasoningView, TextView, ToolView

from .tool_card import ToolCard

__all__ = ["AssistantMessageView", "Notice", "UserMessageView"]


class Notice(Static):
    """A line in the conversation about the run itself: a retry, a compaction, an error, an abort."""

    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__(text, classes=f"notice -{level}", markup=False)
        self.level = level

    def show(self, text: str, level: str) -> None:
        self.update(text)
        self.set_class(False, f"-{self.level}")
        self.level = level
        self.set_class(True, f"-{level}")


class UserMessageView(Static):
    """The user's prompt (dimmed until the session has it)."""

    def __init__(self, view: MessageView) -> None:
        super().__init__(_user_text(view), classes="user-message", markup=False)
        self.view = view
        self.set_class(view.pending, "-pending")

    async def show(self, view: MessageView) -> None:
        if view is not self.view:
            self.view = view
            self.update(_user_text(view))
            self.set_class(view.pending, "-pending")


def _user_text(view: MessageView) -> str:
    texts = [p.text for p in view.parts if isinstance(p, TextView)]
    images = [f"[{p.mime_type} attached]" for p in view.parts if isinstance(p, ImageView)]
    return "\n".join(texts + images)


class _TextPart(Markdown):
    """A text part; streams while its message streams, then is left as written."""

    def __init__(self) -> None:
        super().__init__(classes="answer")
        self.written = ""
        self._stream: MarkdownStream | None = None

    async def show(self, text: str, streaming: bool) -> None:
        if text == self.written:
            return
        if not text.startswith(self.written):  # rewritten, not extended: draw it again
            await self.stop()
            self.written = text
            await self.update(text)
            return
        fresh, self.written = text[len(self.written) :], text
        if not streaming and self._stream is None:
            await self.append(fresh)
            return
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(fresh)

    async def stop(self) -> None:
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()


class _ThinkingPart(Collapsible):
    def __init__(self) -> None:
        self._body = Static(classes="thinking-text", markup=False)
        super().__init__(self._body, title="Thinking", collapsed=True, classes="thinking")
        self.shown = ""

    def show(self, text: str) -> None:
        if text != self.shown:
            self.shown = text
            self._body.update(text)


_Part = _TextPart | _ThinkingPart | ToolCard | Notice
_P = TypeVar("_P", _TextPart, _ThinkingPart, ToolCard, Notice)


class AssistantMessageView(Vertical):
    """An assistant answer; `cards` is the conversation's registry of tool cards by call id."""

    def __init__(self, view: MessageView, cards: dict[str, ToolCard]) -> None:
        super().__init__(classes="assistant-message")
        self.view: MessageView | None = None
        self._latest = view
        self._ready = False
        self._cards = cards
        self._parts: dict[int, _Part] = {}
        self._ending: Notice | None = None

    def markdown(self) -> str:
        """The Markdown the answer's text parts show so far."""
        return "\n\n".join(p.source for p in self._parts.values() if isinstance(p, _TextPart))

    async def on_mount(self) -> None:
        self._ready = True
        await self.show(self._latest)

    async def show(self, view: MessageView) -> None:
        """Draw the message as the view state has it now (once mounted: until then, remember it)."""
        self._latest = view
        if view is self.view or not self._ready:
            return
        self.view = view
        for index, part in enumerate(view.parts):
            await self._show_part(index, part, view.streaming)
        if not view.streaming:
            for widget in self._parts.values():
                if isinstance(widget, _TextPart):
                    await widget.stop()
            await self._show_ending(view)

    async def _show_part(
        self, index: int, part: TextView | ReasoningView | ImageView | ErrorView | ToolView, streaming: bool
    ) -> None:
        widget = self._parts.get(index)
        if isinstance(part, TextView):
            await (widget if isinstance(widget, _TextPart) else await self._add(index, _TextPart())).show(
                part.text, streaming
            )
        elif isinstance(part, ReasoningView):
            thinking = widget if isinstance(widget, _ThinkingPart) else await self._add(index, _ThinkingPart())
            thinking.show("(redacted)" if part.redacted else part.text)
        elif isinstance(part, ToolView):
            card = widget if isinstance(widget, ToolCard) else self._cards.get(part.tool_call_id)
            if card is None or card.parent is None:
                card = await self._add(index, card or ToolCard(part))
                self._cards[part.tool_call_id] = card
            self._parts[index] = card
            card.show(part)
        elif isinstance(part, ErrorView):
            text = f"Error: {part.message}"
            notice = widget if isinstance(widget, Notice) else await self._add(index, Notice(text, "error"))
            notice.show(text, "error")

    async def _show_ending(self, view: MessageView) -> None:
        text = {"aborted": "Aborted.", "length": "The answer was cut off: the model reached its output limit."}
        ending = text.get(view.stop_reason or "")
        if ending and self._ending is None:
            self._ending = Notice(ending, "warning")
            await self.mount(self._ending)

    async def _add(self, index: int, part: _P) -> _P:
        self._parts[index] = part
        if part.parent is None:
            await self.mount(part, before=self._ending) if self._ending is not None else await self.mount(part)
        return part
