"""`RowList`: a long list opens on its cursor, in view, and the keys move the cursor through it."""

from __future__ import annotations

import pytest
from prime_jupyter.cli.tui.widgets.row_list import RowList
from rich.text import Text
from textual.app import App, ComposeResult


class Rows(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.drawn: list[int] = []
        self.selected: list[int] = []

    def compose(self) -> ComposeResult:
        yield RowList(id="rows")

    def on_mount(self) -> None:
        def text(index: int) -> Text:
            self.drawn.append(index)
            return Text(f"row {index}")

        rows = self.query_one(RowList)
        rows.set_rows(20_000, text, cursor=19_999)
        rows.focus()

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        self.selected.append(event.index)


def in_view(rows: RowList) -> bool:
    top = rows.scroll_offset.y
    return top <= rows.cursor < top + rows.scrollable_content_region.height


@pytest.mark.asyncio
async def test_a_long_list_opens_on_its_cursor_and_draws_only_what_shows() -> None:
    app = Rows()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        rows = app.query_one(RowList)
        assert rows.cursor == 19_999 and in_view(rows)
        assert app.drawn and len(set(app.drawn)) <= 20  # the rows on screen, not twenty thousand
        await pilot.press("home")
        assert rows.cursor == 0 and in_view(rows)
        await pilot.press("pagedown", "down")
        assert rows.cursor == rows.scrollable_content_region.height and in_view(rows)
        await pilot.press("up", "enter")
        await pilot.pause()
        assert app.selected == [rows.scrollable_content_region.height - 1]
        await pilot.press("end", "down")
        assert rows.cursor == 19_999  # clamped
