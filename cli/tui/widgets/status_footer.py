"""The footer: where and what the session is, and what it has cost.

Left: the working directory (and its git branch) and the session's name. Right: model and thinking
level, tokens in and out (and cache reads), cost, context used (yellow past 70 %, red past 90 %), the
kernel's state, and for an attached app a lost connection.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from prime_jupyter.protocol.view import ViewState

__all__ = ["FooterInfo", "StatusFooter", "context_style", "footer_info", "tokens"]


@dataclass(frozen=True, slots=True)
class FooterInfo:
    """What the footer shows; every field optional until the session is connected."""

    session_name: str | None = None
    branch: str | None = None
    """The git branch of the session's directory (`git_branch.py`)."""
    model: str | None = None
    thinking: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read: int = 0
    cost: float = 0.0
    context_tokens: int | None = None
    context_window: int | None = None
    kernel_state: str | None = None
    running: bool = False
    link: str | None = None
    """`reconnecting` while an attached app has lost its server."""


def footer_info(
    state: ViewState, kernel_state: str | None, running: bool, link: str | None, branch: str | None = None
) -> FooterInfo:
    """What the footer shows of a view state, with what the view state does not carry."""
    usage = state.usage
    return FooterInfo(
        session_name=state.name,
        branch=branch,
        model=f"{state.model.provider}/{state.model.id}" if state.model else None,
        thinking=state.thinking_level,
        input_tokens=usage.input if usage else 0,
        output_tokens=usage.output if usage else 0,
        cache_read=usage.cache_read if usage else 0,
        cost=usage.cost.total if usage else 0.0,
        context_tokens=state.context_tokens,
        context_window=state.context_window,
        kernel_state=kernel_state,
        running=running,
        link=link,
    )


def tokens(count: int) -> str:
    """12345 -> `12k`, 1234567 -> `1.2M`."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k" if count < 10_000 else f"{count // 1000}k"
    return f"{count / 1_000_000:.1f}M"


def context_style(fraction: float) -> str:
    return "bold red" if fraction > 0.9 else "yellow" if fraction > 0.7 else "dim"


class StatusFooter(Static):
    """One line; the screen gives it a `FooterInfo` (attributes down)."""

    def __init__(self, cwd_label: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cwd_label = cwd_label
        self.info = FooterInfo()

    def on_mount(self) -> None:
        self._draw(self.info)

    def show(self, info: FooterInfo) -> None:
        """Draw `info` if it differs from what is shown: the chat calls this after every pass of events,
        and each redraw costs a layout of the screen (with a long answer streaming, most of a frame)."""
        if info != self.info:
            self._draw(info)

    def _draw(self, info: FooterInfo) -> None:
        self.info = info
        left = Text(self.cwd_label, style="dim", overflow="ellipsis", no_wrap=True)
        if info.branch:
            left.append(f" ({info.branch})", style="cyan")
        if info.session_name:
            left.append(" · ", style="dim").append(info.session_name, style="bold")
        if info.running:
            left.append(" · working (esc aborts)", style="italic")
        table = Table.grid(expand=True)
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column(justify="right", no_wrap=True)
        table.add_row(left, self._right(info))
        self.update(table)

    @staticmethod
    def _right(info: FooterInfo) -> Text:
        parts: list[Text] = []
        if info.link and info.link != "connected":
            parts.append(Text(info.link, style="bold red"))
        if info.input_tokens or info.output_tokens:
            usage = f"↑{tokens(info.input_tokens)} ↓{tokens(info.output_tokens)}"
            if info.cache_read:
                usage += f" R{tokens(info.cache_read)}"
            parts.append(Text(usage, style="dim"))
        if info.cost:
            parts.append(Text(f"${info.cost:.3f}", style="dim"))
        if info.context_tokens is not None and info.context_window:
            fraction = info.context_tokens / info.context_window
            parts.append(Text(f"{fraction:.0%} of {tokens(info.context_window)}", style=context_style(fraction)))
        if info.kernel_state:
            style = {"busy": "yellow", "dead": "bold red", "starting": "italic"}.get(info.kernel_state, "dim")
            label = "not started" if info.kernel_state == "stopped" else info.kernel_state  # until code runs
            parts.append(Text(f"kernel {label}", style=style))
        if info.model:
            model = Text(info.model, style="bold")
            if info.thinking and info.thinking != "off":
                model.append(f" · {info.thinking}", style="magenta")
            parts.append(model)
        return Text("  ").join(parts)
