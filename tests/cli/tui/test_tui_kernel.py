"""`/kernel interrupt` and `/kernel restart` in the app, on the real kernel of an in-process session
(`test_tui_nav_attached.py` does the same on a kernel of a Jupyter server)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from nav_kit import interrupt_a_long_call, notices, restart_loses_the_variables
from prime_jupyter.cli.tui.widgets.status_footer import StatusFooter
from textual.app import App
from tui_kit import SIZE, app_on, local_connection, until

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


@pytest.mark.asyncio
async def test_kernel_interrupt_stops_a_long_ipython_call(home: Path, llm: ScriptedLLMServer) -> None:
    connection = local_connection(home, tools=["ipython"])
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await interrupt_a_long_call(pilot, llm)
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_kernel_restart_leaves_an_idle_kernel_without_the_variables(home: Path, llm: ScriptedLLMServer) -> None:
    connection = local_connection(home, tools=["ipython"])
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await restart_loses_the_variables(pilot, llm)
            await pilot.press(*"/kernel nonsense", "enter")
            await until(pilot, lambda: any("not a kernel action" in text for text in notices(app)))
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_kernel_commands_without_a_kernel_say_so(home: Path) -> None:
    connection = local_connection(home)
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"/kernel restart", "enter")
            await until(pilot, lambda: any("has no kernel" in text for text in notices(app)))
    finally:
        await connection.dispose()


def screen_text(app: App[None]) -> str:
    """What the terminal shows, as plain text (the screenshot's SVG without its markup)."""
    return html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")


@pytest.mark.asyncio
async def test_the_footer_shows_no_kernel_until_code_runs_then_the_kernel(home: Path, llm: ScriptedLLMServer) -> None:
    """A session starts its kernel when its code first runs; the footer says so, and `/kernel` too."""
    connection = local_connection(home, tools=["ipython"])
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            footer = app.screen.query_one(StatusFooter)
            await until(pilot, lambda: footer.info is not None and footer.info.kernel_state == "stopped")
            assert "kernel not started" in screen_text(app)
            await pilot.press(*"/kernel", "enter")
            await until(pilot, lambda: any("starts when the agent first runs code" in t for t in notices(app)))
            llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "x = 1"})]))
            llm.enqueue(ScriptedTurn(blocks=[Text(text="done")]))
            await pilot.press(*"set x", "enter")
            await until(pilot, lambda: footer.info.kernel_state == "idle", within=60)
            assert "kernel idle" in screen_text(app)
    finally:
        await connection.dispose()
