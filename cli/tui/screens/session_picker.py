"""The session picker (`/resume`): sessions newest first, searched as the user types, Enter opens one.

Each row shows the session's name (or first prompt), its first prompt, its directory and its age.
Ctrl+R renames the highlighted session (the search box takes the new name, Enter confirms); Ctrl+D
twice deletes it. The picker dismisses with what to do (`PickerChoice`); the command does it and opens
the picker again for a rename or a delete.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from prime_jupyter.protocol.common import SessionSummary

from ..widgets.key_order import OrderedInput
from .picker import Picker

__all__ = ["PickerChoice", "SessionPicker", "age"]


def age(updated_ms: int, now_ms: int) -> str:
    """`just now`, `5m`, `3h`, `2d`, `6w`."""
    seconds = max(0, (now_ms - updated_ms) // 1000)
    for unit, size in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return "just now"


@dataclass(frozen=True, slots=True)
class PickerChoice:
    """Open, rename (to `name`) or delete the session `session_id`."""

    action: Literal["open", "rename", "delete"]
    session_id: str
    name: str | None = None


class SessionPicker(Picker[PickerChoice]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "rename", "rename", priority=True),
        Binding("ctrl+d", "delete", "delete", priority=True),
    ]  # with the picker's own (Escape, Up, Down)

    def __init__(self, sessions: Sequence[SessionSummary], current: str | None, now_ms: int | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.sessions = sorted(sessions, key=lambda s: s.updated_at, reverse=True)
        self.current = current
        self.now_ms = now_ms if now_ms is not None else int(time.time() * 1000)
        self._renaming: str | None = None
        self._deleting: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker"):
            yield Label("Resume a session", classes="dialog-title")
            yield OrderedInput(placeholder="search", id="filter")
            yield OptionList(id="choices")
            yield Static("Enter opens · Ctrl+R renames · Ctrl+D twice deletes · Esc closes", classes="hint", id="hint")

    def on_mount(self) -> None:
        self._fill("")

    def on_input_changed(self, event: Input.Changed) -> None:
        if self._renaming is None:
            self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self._renaming is not None:
            if event.value.strip():
                self.dismiss(PickerChoice("rename", self._renaming, event.value.strip()))
            return
        chosen = self._highlighted()
        if chosen is not None:
            self.dismiss(PickerChoice("open", chosen))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.dismiss(PickerChoice("open", event.option.id))

    def action_rename(self) -> None:
        chosen = self._highlighted()
        if chosen is None:
            return
        self._renaming = chosen
        search = self.query_one("#filter", Input)
        search.value = ""
        search.placeholder = "new name, then Enter"
        self.query_one("#hint", Static).update("Renaming: type the name and press Enter (Esc closes)")

    def action_delete(self) -> None:
        chosen = self._highlighted()
        if chosen is None or chosen == self.current:
            self.query_one("#hint", Static).update("The open session cannot be deleted here.")
            return
        if self._deleting == chosen:
            self.dismiss(PickerChoice("delete", chosen))
            return
        self._deleting = chosen
        self.query_one("#hint", Static).update("Press Ctrl+D again to delete this session for good.")

    def _highlighted(self) -> str | None:
        choices = self.query_one(OptionList)
        if choices.highlighted is None or not choices.option_count:
            return None
        return choices.get_option_at_index(choices.highlighted).id

    def _fill(self, query: str) -> None:
        words = query.lower().split()
        choices = self.query_one(OptionList)
        choices.clear_options()
        for summary in self.sessions:
            haystack = f"{summary.title} {summary.first_message} {summary.cwd} {summary.session_id}".lower()
            if all(word in haystack for word in words):
                choices.add_option(Option(self._row(summary), id=summary.session_id))
        if choices.option_count:
            choices.highlighted = 0

    def _row(self, summary: SessionSummary) -> Text:
        row = Text(no_wrap=True, overflow="ellipsis")
        row.append("● " if summary.session_id == self.current else "  ")
        row.append(summary.name or summary.title, style="bold")
        row.append(f"  {age(summary.updated_at, self.now_ms)}", style="cyan")
        row.append(f"  {summary.message_count} msgs  {summary.cwd}", style="dim")
        first = " ".join(summary.first_message.split())
        if summary.name and first:
            row.append(f"\n    {first[:120]}", style="dim italic")
        return row
