"""Help (`/help`): the commands, then the keys (read from the bindings, as `/hotkeys` shows them)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from prime_jupyter.connection.extensions import CommandInfo

from ..keys import KeySection
from .hotkeys import key_table

__all__ = ["HelpScreen"]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "close", "close")]

    def __init__(self, commands: Sequence[CommandInfo], keys: Sequence[KeySection]) -> None:
        super().__init__(classes="dialog-screen")
        self.commands = list(commands)
        self.keys = list(keys)

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for command in self.commands:
            table.add_row(f"/{command.name} {command.arguments}".rstrip(), command.description)
        with VerticalScroll(classes="dialog help"):
            yield Label("Commands and keys (Esc closes)", classes="dialog-title")
            yield Static(table)
            yield Static("")
            yield Static(key_table(self.keys))

    def action_close(self) -> None:
        self.dismiss(None)
