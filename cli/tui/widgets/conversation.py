"""The conversation: every message and notice of the session, in order, scrollable.

It follows the newest output (Textual's anchor) until the user scrolls up, and follows again once they
are back at the bottom; while they are up, new output posts `Behind(True)` (the chat shows a marker),
and coming back down posts `Behind(False)`. Messages are kept by their render key, notices by their key, tool cards by
tool-call id, so a new view state redraws only what changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget

from prime_jupyter.protocol.view import MessageView
from prime_jupyter.protocol.view import Notice as NoticeView

from .message import AssistantMessageView, Notice, UserMessageView
from .shell_card import ShellCard
from .tool_card import ToolCard

__all__ = ["Conversation"]


class Conversation(VerticalScroll):
    """The scrolling transcript."""

    class ReachedTop(Message):
        """The user scrolled to the top: earlier messages may be mounted."""

    class Behind(Message):
        """Whether output arrived below what the user is reading."""

        def __init__(self, behind: bool) -> None:
            super().__init__()
            self.behind = behind

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cards: dict[str, ToolCard] = {}
        self.messages: dict[str, UserMessageView | AssistantMessageView] = {}
        self.notices: dict[str, Notice] = {}
        self.shells: list[ShellCard] = []
        """The user's shell commands watched here (`!cmd`: this app's and other clients'), in order; not part of
        the session's view fold (`shell_events.py`)."""
        self.can_focus = False
        self.scrolled_up = False
        """The user scrolled away from the bottom (Textual released the anchor)."""
        self._behind = False
        self._earlier: Notice | None = None

    def on_mount(self) -> None:
        self.anchor()

    def release_anchor(self) -> None:
        super().release_anchor()
        self.scrolled_up = True

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value <= 0 < old_value:
            self.post_message(self.ReachedTop())
        if self.scrolled_up and new_value >= self.max_scroll_y:
            self.scrolled_up = False
            self._set_behind(False)

    def output_arrived(self) -> None:
        """Something new was drawn: if the user is reading above it, say so."""
        if self.scrolled_up:
            self._set_behind(True)

    def scroll_pages(self, pages: int) -> None:
        """A page up (`pages` < 0: the transcript stops following new output) or down; a page down that
        reaches the end follows new output again, as Ctrl+End does."""
        if pages < 0:
            self.release_anchor()
            self.scroll_page_up(animate=False)
        elif self.scroll_y + self.scrollable_content_region.height >= self.max_scroll_y:
            self.jump_to_end()
        else:
            self.scroll_page_down(animate=False)

    def jump_to_end(self) -> None:
        self.scrolled_up = False
        self.anchor()
        self._set_behind(False)

    def _set_behind(self, behind: bool) -> None:
        if behind != self._behind:
            self._behind = behind
            self.post_message(self.Behind(behind))

    async def show_messages(self, views: Sequence[MessageView]) -> None:
        """Draw messages of the view state: new ones mounted at the end together, known ones in place.

        Several new ones (a session opened) are mounted in one batch: the screen is not drawn again
        while each is mounted. One alone (a prompt, an answer starting) is not: a batch holds back every
        drawing until the mount is over, and the mount awaits the loop, which a streaming answer keeps
        busy; a key typed then waited 100-220 ms to show (`benchmarks/bench_tui.py`)."""
        fresh: list[UserMessageView | AssistantMessageView] = []
        for view in views:
            widget = self.messages.get(view.key)
            if widget is None:
                widget = self.messages[view.key] = self._widget(view)
                fresh.append(widget)
            else:
                await widget.show(view)
        if len(fresh) > 1:
            with self.app.batch_update():
                await self.mount_all(fresh)
        elif fresh:
            await self.mount_all(fresh)

    def _widget(self, view: MessageView) -> UserMessageView | AssistantMessageView:
        return UserMessageView(view) if view.role == "user" else AssistantMessageView(view, self.cards)

    async def show_earlier(self, views: Sequence[MessageView]) -> None:
        """Mount earlier messages above the ones shown (below the line that counts the rest)."""
        widgets = [self._widget(view) for view in views]
        if not widgets:
            return
        first = next(iter(self.messages.values()), None)
        self.messages = {**{v.key: w for v, w in zip(views, widgets, strict=True)}, **self.messages}
        if self._earlier is not None:
            await self.mount_all(widgets, after=self._earlier)
        elif first is not None:
            await self.mount_all(widgets, before=first)
        else:
            await self.mount_all(widgets)

    async def set_earlier(self, hidden: int) -> None:
        """The line at the top that says how many earlier messages are not mounted (none: no line)."""
        if hidden and self._earlier is None:
            self._earlier = Notice("", "info")
            await self.mount(self._earlier, before=0) if self.children else await self.mount(self._earlier)
        if self._earlier is not None:
            if hidden:
                self._earlier.show(f"{hidden} earlier messages: scroll up to see them.", "info")
            else:
                await self._earlier.remove()
                self._earlier = None

    async def show_notices(self, notices: tuple[NoticeView, ...]) -> None:
        """Notices appear in line where they first came; one replaced under the same key changes in place."""
        keys = {n.key for n in notices}
        for key in [k for k in self.notices if k not in keys]:
            await self.notices.pop(key).remove()
        for notice in notices:
            widget = self.notices.get(notice.key)
            if widget is None:
                widget = self.notices[notice.key] = Notice(notice.text, notice.level)
                await self.mount(widget)
            else:
                widget.show(notice.text, notice.level)

    async def drop_messages(self, keys: set[str]) -> None:
        for key in keys:
            widget = self.messages.pop(key, None)
            if widget is not None:
                await widget.remove()

    async def add_line(self, text: str, level: str = "info", after: Widget | None = None) -> Notice:
        """A line of the app's own (a command's result), after what is there (or after `after`)."""
        notice = Notice(text, level)
        await self.mount(notice, after=after)
        return notice

    async def add_shell(self, card: ShellCard) -> None:
        """A shell command the user ran, after what is there."""
        self.shells.append(card)
        await self.mount(card)

    async def clear(self) -> None:
        self.cards.clear()
        self.shells.clear()
        self.messages.clear()
        self.notices.clear()
        self._earlier = None
        await self.remove_children()
        self.anchor()

    def set_expanded(self, expanded: bool) -> None:
        for card in self.cards.values():
            card.expanded = expanded
        for shell in self.shells:
            shell.expanded = expanded
