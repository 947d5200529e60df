"""Hotkeys (`/hotkeys`): every key of the app, section by section, read from the bindings (`keys.py`)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ..keys import KeySection

__all__ = ["HotkeysScreen", "key_table"]


def key_table(sections: Sequence[KeySection]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for number, (title, rows) in enumerate(sections):
        if number:
            table.add_row("", "")
        table.add_row(f"[u]{title}[/u]", "")
        for keys, description in rows:
            table.add_row(keys, description)
    return table


class HotkeysScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "close", "close")]

    def __init__(self, sections: Sequence[KeySection]) -> None:
        super().__init__(classes="dialog-screen")
        self.sections = list(sections)

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help"):
            yield Label("Keys (Esc closes)", classes="dialog-title")
            yield Static(key_table(self.sections), id="hotkeys")

    def action_close(self) -> None:
        self.dismiss(None)
