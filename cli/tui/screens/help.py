"""Help (`/help`): the commands and the keys."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

__all__ = ["KEYS", "HelpScreen"]

KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "send; while a run goes, steer it"),
    ("Alt+Enter", "queue a follow-up for when the run ends"),
    ("Ctrl+J / Shift+Enter", "new line"),
    ("Up / Down", "earlier prompts (on the first / last line)"),
    ("Tab", "complete a / command"),
    ("Ctrl+G", "edit the prompt in $EDITOR"),
    ("Esc", "abort the run, or a running !cmd"),
    ("!cmd / !!cmd", "run a shell command: the agent sees its output / only you do"),
    ("Ctrl+C", "clear the editor, else abort the run"),
    ("Alt+Up", "take the last queued message back into the editor"),
    ("Shift+Tab", "next thinking level"),
    ("Ctrl+O", "expand or collapse all tool output"),
    ("Ctrl+End", "back to the newest output (after scrolling up)"),
    ("Enter on a tool card", "expand or collapse it"),
    ("s / o on a tool card", "save its images to files / open them in the system's viewer"),
    ("Ctrl+L", "pick a model"),
    ("Ctrl+Q / Ctrl+D", "quit (Ctrl+D on an empty editor)"),
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "close", "close")]

    def __init__(self, commands: Sequence[tuple[str, str]]) -> None:
        super().__init__(classes="dialog-screen")
        self.commands = list(commands)

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        for name, description in self.commands:
            table.add_row(f"/{name}", description)
        table.add_row("", "")
        for key, description in KEYS:
            table.add_row(key, description)
        with VerticalScroll(classes="dialog help"):
            yield Label("Commands and keys (Esc closes)", classes="dialog-title")
            yield Static(table)

    def action_close(self) -> None:
        self.dismiss(None)
