"""One message of the conversation, drawn from its `MessageView` in the view state.

A message is redrawn only when the view state holds a new `MessageView` for it (states share what did
not change). Each text part appends only the new text while the message streams, and at a bounded rate
(`_TextPart`); thinking sits in a collapsed block; each tool part is a `ToolCard`, kept by its tool-call
id.
"""

from __future__ import annotations

import asyncio
import functools
import time
from typing import TypeVar

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from textual.containers import Vertical
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

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


_APPEND_MIN_S = 0.05
_APPEND_COST_SHARE = 4
"""A streaming text part draws what came at most every `_APPEND_MIN_S`, and waits at least this many
times as long as its last drawing took, counted until that drawing was on screen. Each append to the
Markdown parses its open block again, and the next frame lays it out and wraps it again; bounded, that
work takes at most a fifth of the loop. Counted without the frame, a long answer's drawings came every
50 ms while each frame cost more as the answer grew, and in the last third of a 20,000-delta answer keys
took 34-60 ms to show (p50 16-21 ms over the answer); counted with it, p50 7-13 ms
(`benchmarks/bench_tui.py`)."""

_LONG_LINE = 1000
"""While a text part streams, a line that grows past this many characters stops going to the Markdown:
the rest of it is shown as plain text below, in pieces of at most this many characters (cut after a
space where there is one), of which only the last changes. Appended to the Markdown, one growing
20,000-character line was parsed again (about 25 ms here) and wrapped again (35 ms) at every drawing, so
the loop stalled 100-160 ms at a time and keys took as long to show while a 20,000-delta answer streamed
(`benchmarks/bench_tui.py`). The line goes to the Markdown whole once it ends or the part stops
streaming, so the final rendering is the Markdown's alone; shorter lines stream into it as they come."""


@functools.cache
def _parser() -> MarkdownIt:
    """The one Markdown parser of every text part. By default Textual's `Markdown` builds a parser (its
    rules, its link finder's patterns) for each `update` and `append`, 0.2 ms each here: some 70 of them
    before a resumed session's 40 newest messages are drawn, and one per append while an answer streams.
    Parsing keeps its state apart from the parser's, and it all runs on the app's loop.

    Math (`$x\\_1$`, `$$...$$`) is kept as written: Markdown alone read `\\_` as an escaped `_` and dropped
    the backslash, which LaTeX needs. `dollarmath` finds it (as pandoc does: no space inside the dollars,
    no digit after the closing one, so "$5 and $6" stays text), and `_math_as_written` turns it into what
    Textual's Markdown draws: inline text with its dollars, a block as a fenced block."""
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    parser = MarkdownIt("gfm-like").use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)
    parser.core.ruler.push("math_as_written", _math_as_written)
    return parser


def _math_as_written(state: StateCore) -> None:
    for token in state.tokens:
        if token.type in ("math_block", "math_block_label"):
            body = token.content.strip("\n")
            token.type, token.tag, token.info, token.content = "fence", "code", "latex", f"$$\n{body}\n$$\n"
        for child in token.children or ():
            if child.type in ("math_inline", "math_inline_double"):
                child.type, child.content = "text", f"{child.markup}{child.content}{child.markup}"


class _TextPart(Markdown):
    """A text part; streams while its message streams (the new text drawn at a bounded rate, the rest of
    a long growing line as plain text), then is left as written: all of it Markdown."""

    def __init__(self) -> None:
        super().__init__(classes="answer", parser_factory=_parser)
        self.written = ""
        """All the text the part was given; the Markdown has `written[:self._given]`."""
        self._given = 0
        self._tail: list[Static] = []
        self._tail_texts: list[str] = []
        self._timer: Timer | None = None
        self._wait_s = _APPEND_MIN_S
        self._drawing = asyncio.Lock()

    async def show(self, text: str, streaming: bool) -> None:
        if text == self.written:
            return
        if not text.startswith(self.written):  # rewritten, not extended: draw it again
            await self.stop()
            self.written = text
            self._given = len(text)
            await self.update(text)
            return
        self.written = text
        if not streaming:
            await self.stop()
        elif self._timer is None:
            self._timer = self.set_timer(self._wait_s, self._draw)

    async def _draw(self) -> None:
        self._timer = None
        async with self._drawing:
            started = time.monotonic()
            line_start = self.written.rfind("\n") + 1
            long_line = len(self.written) - line_start > _LONG_LINE
            given = max(line_start, self._given) if long_line else len(self.written)
            if given > self._given:
                fresh, self._given = self.written[self._given : given], given
                await self.append(fresh)
            await self._show_tail(self.written[given:])
            self.call_after_refresh(self._drawn, started)

    def _drawn(self, started: float) -> None:
        """The drawing that began at `started` is on screen: its cost, the frame's included, sets the wait
        before the next one."""
        self._wait_s = max(_APPEND_MIN_S, _APPEND_COST_SHARE * (time.monotonic() - started))

    async def _show_tail(self, text: str) -> None:
        """Show `text` as plain pieces after the Markdown (none for no text); only changed pieces are
        updated."""
        pieces = _pieces(text)
        for index, piece in enumerate(pieces[: len(self._tail)]):
            if self._tail_texts[index] != piece:
                self._tail[index].update(piece)
                self._tail_texts[index] = piece
        parent = self.parent
        if len(pieces) > len(self._tail) and isinstance(parent, Widget):
            fresh = [Static(piece, classes="answer-tail", markup=False) for piece in pieces[len(self._tail) :]]
            after = self._tail[-1] if self._tail else self
            self._tail.extend(fresh)
            self._tail_texts.extend(pieces[len(self._tail_texts) :])
            await parent.mount_all(fresh, after=after)
        elif len(self._tail) > len(pieces) and isinstance(parent, Widget):
            gone, self._tail = self._tail[len(pieces) :], self._tail[: len(pieces)]
            del self._tail_texts[len(pieces) :]
            await parent.remove_children(gone)

    async def stop(self) -> None:
        """Give the Markdown all the text now (the part has stopped streaming)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        async with self._drawing:
            if self._given < len(self.written):
                fresh, self._given = self.written[self._given :], len(self.written)
                with self.app.batch_update():
                    await self.append(fresh)
                    await self._show_tail("")
            elif self._tail:
                await self._show_tail("")


def _pieces(text: str) -> list[str]:
    """`text` cut into pieces of at most `_LONG_LINE` characters, after the last space of a piece where
    it has one: the same first pieces for the same start, however much text follows them."""
    pieces: list[str] = []
    start = 0
    while len(text) - start > _LONG_LINE:
        space = text.rfind(" ", start, start + _LONG_LINE)
        end = space + 1 if space > start else start + _LONG_LINE
        pieces.append(text[start:end])
        start = end
    if start < len(text):
        pieces.append(text[start:])
    return pieces


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
