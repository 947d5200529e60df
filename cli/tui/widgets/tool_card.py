"""A tool card: one tool call, keyed by its id, redrawn in place as its arguments and output stream.

Collapsed it shows the last lines of the output; Enter on a focused card (or a click) expands that one,
and Ctrl+O on the chat expands or collapses all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import JsonValue
from rich.text import Text
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Static

from prime_jupyter.ai.types import ImageContent, TextContent

from ..tool_render import ToolView, render_tool, summary_of

__all__ = ["ToolCard"]

_MARKS = {"pending": ("…", "dim"), "running": ("●", "yellow"), "done": ("✓", "green"), "error": ("✗", "red")}


class ToolCard(Vertical, can_focus=True):
    """Header (status, tool name, first line of its input) and body (input and output)."""

    BINDINGS = [Binding("enter", "toggle_output", "expand", show=False)]

    expanded: reactive[bool] = reactive(False)

    def __init__(self, call_id: str, name: str) -> None:
        super().__init__(classes="tool-card")
        self.call_id = call_id
        self.view = ToolView(name=name, args={})
        self._header = Static(classes="tool-header")
        self._body = Static(classes="tool-body")

    def compose(self) -> tuple[Static, Static]:
        return self._header, self._body

    def on_mount(self) -> None:
        self._redraw()

    def set_arguments(self, args: dict[str, JsonValue]) -> None:
        self._update(ToolView(self.view.name, dict(args), self.view.content, self.view.details, self.view.status))

    def set_running(self, args: dict[str, JsonValue] | None = None) -> None:
        view = self.view
        self._update(ToolView(view.name, dict(args) if args else view.args, view.content, view.details, "running"))

    def set_output(
        self, content: Sequence[TextContent | ImageContent], details: JsonValue, status: str | None = None
    ) -> None:
        """The output so far (`status` None: still running) or the final one (`done` / `error`)."""
        view = self.view
        self._update(ToolView(view.name, view.args, tuple(content), details, status or view.status))

    def action_toggle_output(self) -> None:
        self.expanded = not self.expanded

    def on_click(self) -> None:
        self.expanded = not self.expanded

    def watch_expanded(self) -> None:
        self._redraw()

    def _update(self, view: ToolView) -> None:
        self.view = view
        self._redraw()

    def header_text(self) -> Text:
        mark, style = _MARKS.get(self.view.status, _MARKS["pending"])
        return Text.assemble((f"{mark} ", style), (self.view.name, "bold"), "  ", (summary_of(self.view), "dim"))

    def _redraw(self) -> None:
        self._header.update(self.header_text())
        self._body.update(render_tool(self.view, self.expanded))
        self.set_class(self.view.status == "error", "-error")
