"""Helpers of the terminal app's tests: a real in-process session on the scripted LLM server, the app on
it, and waiting on a condition while Pilot drives it."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from pathlib import Path

from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.tool_render import render_tool
from prime_jupyter.cli.tui.widgets.message import AssistantMessageView, Notice
from prime_jupyter.cli.tui.widgets.tool_card import ToolCard
from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.runtime.factory import SessionMode, SessionOptions

SIZE = (100, 30)


def local_connection(home: Path, tools: list[str] | None = None, mode: SessionMode = "new") -> InProcessAgentConnection:
    """A session in this process, in `home`'s sibling `work`, on scripted/m1, with the `ask` tool."""
    work = home.parent / "work"
    options = SessionOptions(cwd=work, model="scripted/m1", agent_dir=home, interactive=True, tools=tools, mode=mode)
    return InProcessAgentConnection.create(options)


def app_on(connection: AgentConnection, prompt: str | None = None, attached: bool = False) -> PrimeApp:
    async def connect() -> AgentConnection:
        return connection

    return PrimeApp(connect, cwd_label="~/work", initial_prompt=prompt, attached=attached)


async def until(pilot: Pilot[None], condition: Callable[[], bool], within: float = 20.0) -> None:
    """Let the app run until `condition` holds, checking it every 20 ms (`pause()` without a delay waits for
    the app to be idle, which it is not while an answer streams)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not condition():
        if loop.time() > deadline:
            shown = [str(n.content) for n in pilot.app.screen.query(Notice)]
            raise AssertionError(f"not within {within} s; answers: {answers(pilot.app)[:300]!r}; notices: {shown}")
        await pilot.pause(0.02)


def answers(app: App[None]) -> str:
    """The text of every assistant answer on the screen, joined."""
    return "\n".join(view.markdown() for view in app.screen.query(AssistantMessageView))


def card_text(card: ToolCard) -> str:
    """What a tool card shows (header and body), as plain text."""
    console = Console(width=100, record=True, file=io.StringIO(), color_system=None)
    console.print(card.header_text())
    console.print(render_tool(card.view, card.expanded))
    return console.export_text()
