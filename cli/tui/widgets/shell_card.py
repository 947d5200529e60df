"""A shell card: a command the user ran with `!cmd` (or `!!cmd`), its output and how it ended.

It shows `$ command` while the command runs (Esc cancels it) with the output as it arrives (the session's
`shell_execution_output` chunks: only the end of it is kept, `LIVE_CHARS`, and it is redrawn at most every
`REDRAW_INTERVAL`, however fast chunks come), then the output the transcript kept (the last lines until
expanded, like a tool card) and its exit code. A command run with `!!` says that the agent does not see it.
A card is named by its command's `execution_id`, so the events of any client's command find it.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from prime_jupyter.protocol.shell import ShellResult

from ..tool_render import preview
from .card import Card

__all__ = ["LIVE_CHARS", "REDRAW_INTERVAL", "ShellCard"]

LIVE_CHARS = 50_000
"""How much of a running command's output a card keeps (its end): what the transcript keeps at the most."""
REDRAW_INTERVAL = 0.1
"""Seconds between two redraws of a running command's output at the least."""


class ShellCard(Card):
    """Header (status and command) and body (output and exit code); `add_output` while it runs, `finish`
    gives it the result."""

    def __init__(self, command: str, include_in_context: bool, execution_id: str | None = None) -> None:
        super().__init__(classes="tool-card shell-card")
        self.command = command
        self.include_in_context = include_in_context
        self.execution_id = execution_id
        self.result: ShellResult | None = None
        self.error: str | None = None
        self.live_output = ""
        """The end of what the command printed so far (`LIVE_CHARS` at the most)."""
        self._cut = False
        self._redraw_timer: Timer | None = None

    @property
    def running(self) -> bool:
        return self.result is None and self.error is None

    def add_output(self, chunk: str, skipped: int = 0) -> None:
        """More of the running command's output; the card redraws soon (not at every chunk)."""
        if not self.running:
            return
        text = self.live_output + chunk
        if skipped or len(text) > LIVE_CHARS:
            self._cut = True
            text = text[-LIVE_CHARS:]
        self.live_output = text
        if self._redraw_timer is None and self.is_mounted:
            self._redraw_timer = self.set_timer(REDRAW_INTERVAL, self._redraw)

    def finish(self, result: ShellResult) -> None:
        self.result = result
        self._redraw()

    def fail(self, error: str) -> None:
        if self.result is None:
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
            if self.live_output:
                if self._cut:
                    parts.append(Text("… (only the end of the output is shown)", style="dim italic"))
                parts.append(preview(Text(self.live_output), self.expanded))
            parts.append(Text("running… (esc cancels)", style="dim italic"))
        else:
            if result.output:
                parts.append(preview(Text(result.output), self.expanded))
            parts.append(_ending(result))
        return Group(*parts)

    def _redraw(self) -> None:
        if self._redraw_timer is not None:
            self._redraw_timer.stop()
            self._redraw_timer = None
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
