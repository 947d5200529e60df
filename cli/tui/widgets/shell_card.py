"""A shell card: a command the user ran with `!cmd` (or `!!cmd`), its output and how it ended.

It shows `$ command` while the command runs (Esc cancels it), then its output (the last lines until
expanded, like a tool card) and its exit code. A command run with `!!` says that the agent does not
see it.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from prime_jupyter.protocol.shell import ShellResult

from ..tool_render import preview
from .card import Card

__all__ = ["ShellCard"]


class ShellCard(Card):
    """Header (status and command) and body (output and exit code); `finish` gives it the result."""

    def __init__(self, command: str, include_in_context: bool) -> None:
        super().__init__(classes="tool-card shell-card")
        self.command = command
        self.include_in_context = include_in_context
        self.result: ShellResult | None = None
        self.error: str | None = None

    def finish(self, result: ShellResult) -> None:
        self.result = result
        self._redraw()

    def fail(self, error: str) -> None:
        self.error = error
        self._redraw()

    def header_text(self) -> Text:
        result = self.result
        if self.error is not None or (result is not None and (result.cancelled or result.exit_code)):
            mark = ("✗ ", "red")
        elif result is None:
            mark = ("● ", "yellow")
        else:
            mark = ("✓ ", "green")
        header = Text.assemble(mark, ("$ ", "bold"), (self.command.splitlines()[0] if self.command else "", "bold"))
        if not self.include_in_context:
            header.append("  (not sent to the agent)", style="dim italic")
        return header

    def body(self) -> Group:
        result = self.result
        parts: list[Text] = []
        if len(self.command.splitlines()) > 1:
            parts.append(Text(self.command, style="dim"))
        if self.error is not None:
            parts.append(Text(self.error, style="red"))
        elif result is None:
            parts.append(Text("running… (esc cancels)", style="dim italic"))
        else:
            if result.output:
                parts.append(preview(Text(result.output), self.expanded))
            parts.append(_ending(result))
        return Group(*parts)

    def _redraw(self) -> None:
        if not self.is_mounted:
            return
        self.query_one(".tool-header", Static).update(self.header_text())
        self.query_one(".tool-body", Static).update(self.body())
        failed = self.error is not None or (
            self.result is not None and bool(self.result.cancelled or self.result.exit_code)
        )
        self.set_class(failed, "-error")


def _ending(result: ShellResult) -> Text:
    if result.cancelled:
        text = Text("cancelled", style="yellow")
    elif result.exit_code:
        text = Text(f"exit code {result.exit_code}", style="red")
    else:
        text = Text("exit code 0", style="dim")
    if result.truncated and result.full_output_path:
        text.append(f" · output cut, all of it in {result.full_output_path}", style="dim")
    return text
