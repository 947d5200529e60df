"""`RowList`: a list of one-line rows with a cursor, drawn a line at a time (Textual's line API).

The tree of a long session has tens of thousands of rows. Textual's `OptionList` measures every option
when they are set (10,000 rows took 5 s to open on this machine); this list draws only the rows on
screen, and makes each row's text only when it is first drawn: opening it costs about the same for ten
rows as for a hundred thousand. Rows wider than the list are cut (no horizontal scrolling).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

__all__ = ["RowList"]


class RowList(ScrollView, can_focus=True):
    """Rows of rich text; Up and Down (and the page keys) move the cursor, Enter selects its row."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"row-list--cursor"}
    DEFAULT_CSS = """
    RowList > .row-list--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: $block-cursor-text-style;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "move up", show=False),
        Binding("down", "move(1)", "move down", show=False),
        Binding("pageup", "page(-1)", "a page up", show=False),
        Binding("pagedown", "page(1)", "a page down", show=False),
        Binding("home", "move_to(0)", "the first row", show=False),
        Binding("end", "move_to(-1)", "the last row", show=False),
        Binding("enter", "select", "choose the row", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True)

    class Highlighted(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class Selected(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.count = 0
        self._text: Callable[[int], Text] = lambda index: Text()

    def set_rows(self, count: int, text: Callable[[int], Text], cursor: int = 0) -> None:
        """Show `count` rows, row `i` drawn as `text(i)`, with the cursor on `cursor` (clamped) and in view."""
        self.count = count
        self._text = lru_cache(maxsize=512)(text)
        self.virtual_size = Size(0, count)
        self.cursor = min(max(cursor, 0), count - 1) if count else 0
        self.call_after_refresh(self._show_cursor)  # once laid out, the cursor's row is in view
        self.refresh()

    def validate_cursor(self, cursor: int) -> int:
        return min(max(cursor, 0), max(self.count - 1, 0))

    def watch_cursor(self, cursor: int) -> None:
        if self.count:
            self._show_cursor()
            self.post_message(self.Highlighted(cursor))
        self.refresh()

    def _show_cursor(self) -> None:
        if self.count:
            self.scroll_to_region(Region(0, self.cursor, 1, 1), animate=False, force=True, immediate=True)

    def action_move(self, step: int) -> None:
        self.cursor += step

    def action_page(self, step: int) -> None:
        self.cursor += step * max(self.scrollable_content_region.height - 1, 1)

    def action_move_to(self, index: int) -> None:
        self.cursor = index if index >= 0 else self.count - 1

    def action_select(self) -> None:
        if self.count:
            self.post_message(self.Selected(self.cursor))

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if index >= self.count:
            return Strip.blank(width, base)
        text = self._text(index)
        strip = Strip(list(text.render(self.app.console, end="")), text.cell_len)
        if index == self.cursor:
            strip = strip.apply_style(self.get_component_rich_style("row-list--cursor"))
            base = base + self.get_component_rich_style("row-list--cursor")
        return strip.crop_extend(scroll_x, scroll_x + width, base).apply_offsets(scroll_x, index)
