"""`Card`: what tool cards and shell cards share — a focusable header and body, collapsed to a preview
until Enter (or a click) expands it, redrawn whenever that changes."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Static

__all__ = ["Card"]


class Card(Vertical, can_focus=True):
    """Subclasses draw their header and body in `_redraw` (called once mounted, and on each toggle; it does
    nothing before the card is mounted)."""

    BINDINGS = [Binding("enter", "toggle_output", "expand or collapse its output (a click too)", show=False)]

    expanded: reactive[bool] = reactive(False)

    def compose(self) -> ComposeResult:
        yield Static(classes="tool-header")
        yield Static(classes="tool-body")

    def on_mount(self) -> None:
        self._redraw()

    def action_toggle_output(self) -> None:
        self.expanded = not self.expanded

    def on_click(self) -> None:
        self.expanded = not self.expanded

    def watch_expanded(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        raise NotImplementedError
