"""A tool card: one tool call, keyed by its id, redrawn in place as its arguments and output stream.

Collapsed it shows the last lines of the output; Enter on a focused card (or a click) expands that one,
and Ctrl+O on the chat expands or collapses all of them.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Static

from prime_jupyter.protocol.view import ToolView

from ..tool_render import CardData, card_data, render_tool, summary_of

__all__ = ["ToolCard"]

_MARKS = {"pending": ("…", "dim"), "running": ("●", "yellow"), "done": ("✓", "green"), "error": ("✗", "red")}


class ToolCard(Vertical, can_focus=True):
    """Header (status, tool name, first line of its input) and body (input and output)."""

    BINDINGS = [Binding("enter", "toggle_output", "expand or collapse its output (a click too)", show=False)]

    expanded: reactive[bool] = reactive(False)

    def __init__(self, tool: ToolView) -> None:
        super().__init__(classes="tool-card")
        self.call_id = tool.tool_call_id
        self.tool = tool
        self.view = card_data(tool)
        self._ready = False

    def compose(self) -> ComposeResult:
        yield Static(classes="tool-header")
        yield Static(classes="tool-body")

    def on_mount(self) -> None:
        self._ready = True
        self._redraw()

    def show(self, tool: ToolView) -> None:
        """Draw the tool part as the view state has it now."""
        if tool is not self.tool:
            self.tool = tool
            self.view = card_data(tool)
            self._redraw()

    def header_text(self) -> Text:
        mark, style = _MARKS.get(self.view.status, _MARKS["pending"])
        return Text.assemble((f"{mark} ", style), (self.view.name, "bold"), "  ", (summary_of(self.view), "dim"))

    def action_toggle_output(self) -> None:
        self.expanded = not self.expanded

    def on_click(self) -> None:
        self.expanded = not self.expanded

    def watch_expanded(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        if not self._ready:
            return
        view: CardData = self.view
        self.query_one(".tool-header", Static).update(self.header_text())
        self.query_one(".tool-body", Static).update(render_tool(view, self.expanded))
        self.set_class(view.status == "error", "-error")
