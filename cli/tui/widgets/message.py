"""One message of the conversation: the user's prompt, or an assistant answer drawn from its content.

An assistant message is redrawn from the message as built so far (what every `message_update` carries),
not from deltas: each text block streams through Textual's `MarkdownStream` (only the new text is
written, and fragments that come faster than the screen draws are merged), thinking sits in a collapsed
block, and each tool call is a `ToolCard` registered by its id so its execution can update it later.
"""

from __future__ import annotations

from typing import TypeVar

from textual.containers import Vertical
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets._markdown import MarkdownStream

from prime_jupyter.ai.types import AssistantMessage, TextContent, ThinkingContent, ToolCall

from .tool_card import ToolCard

__all__ = ["AssistantMessageView", "Notice", "UserMessageView"]


class UserMessageView(Static):
    """The user's prompt, as sent."""

    def __init__(self, text: str) -> None:
        super().__init__(text, classes="user-message", markup=False)


class Notice(Static):
    """A line in the conversation about the run itself: a retry, a compaction, an error, an abort."""

    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__(text, classes=f"notice -{level}", markup=False)


class _TextPart(Markdown):
    """A text block; streams while the message streams, then is left as written."""

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
        self._text = Static(classes="thinking-text", markup=False)
        super().__init__(self._text, title="Thinking", collapsed=True, classes="thinking")
        self.shown = ""

    def show(self, text: str) -> None:
        if text != self.shown:
            self.shown = text
            self._text.update(text)


_P = TypeVar("_P", _TextPart, _ThinkingPart, ToolCard)


class AssistantMessageView(Vertical):
    """An assistant answer; `cards` is the conversation's registry of tool cards by call id."""

    def __init__(self, cards: dict[str, ToolCard]) -> None:
        super().__init__(classes="assistant-message")
        self._cards = cards
        self._parts: dict[int, _TextPart | _ThinkingPart | ToolCard] = {}
        self._final = False

    def markdown(self) -> str:
        """The Markdown the answer's text blocks show so far (what has reached the screen)."""
        return "\n\n".join(p.source for p in self._parts.values() if isinstance(p, _TextPart))

    async def show(self, message: AssistantMessage, streaming: bool) -> None:
        """Draw `message` (the whole of it so far); `streaming` False once it is final."""
        for index, block in enumerate(message.content):
            part = self._parts.get(index)
            if isinstance(block, TextContent):
                if not isinstance(part, _TextPart):
                    part = await self._add(index, _TextPart())
                await part.show(block.text, streaming)
            elif isinstance(block, ThinkingContent):
                if not isinstance(part, _ThinkingPart):
                    part = await self._add(index, _ThinkingPart())
                part.show(block.thinking if not block.redacted else "(redacted)")
            elif isinstance(block, ToolCall):
                if not isinstance(part, ToolCard):
                    part = await self._add(index, self._cards.get(block.id) or ToolCard(block.id, block.name))
                    self._cards[block.id] = part
                if part.view.status == "pending":
                    part.set_arguments(block.arguments)
        if not streaming:
            await self.close(message)

    async def close(self, message: AssistantMessage | None) -> None:
        """The message is final: end its streams, and say how it ended when it did not end well."""
        if self._final:
            return
        self._final = True
        for part in self._parts.values():
            if isinstance(part, _TextPart):
                await part.stop()
        if message is not None and message.stop_reason == "aborted":
            await self.mount(Notice("Aborted.", "warning"))
        elif message is not None and message.stop_reason == "error":
            await self.mount(Notice(f"Error: {message.error_message or 'the model call failed'}", "error"))
        elif message is not None and message.stop_reason == "length":
            await self.mount(Notice("The answer was cut off: the model reached its output limit.", "warning"))

    async def _add(self, index: int, part: _P) -> _P:
        self._parts[index] = part
        if part.parent is None:
            await self.mount(part)
        return part
