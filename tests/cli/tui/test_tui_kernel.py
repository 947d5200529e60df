"""`/kernel interrupt` and `/kernel restart` in the app, on the real kernel of an in-process session
(`test_tui_nav_attached.py` does the same on a kernel of a Jupyter server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.widgets.message import Notice
from prime_jupyter.cli.tui.widgets.status_footer import StatusFooter
from prime_jupyter.cli.tui.widgets.tool_card import ToolCard
from textual.pilot import Pilot
from tui_kit import SIZE, answers, app_on, card_text, local_connection, until

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

LONG = "import time\nprint('started', flush=True)\nfor _ in range(3000):\n    time.sleep(0.1)\nprint('all', 'done')"


def notices(app: PrimeApp) -> list[str]:
    return [str(n.content) for n in app.screen.query(Notice)]


def last_card(app: PrimeApp) -> ToolCard:
    return list(app.screen.query(ToolCard))[-1]


async def interrupt_a_long_call(pilot: Pilot[None], llm: ScriptedLLMServer) -> None:
    """A long ipython call, interrupted with /kernel interrupt: the run ends with the interrupted output."""
    app = pilot.app
    assert isinstance(app, PrimeApp)
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", id="call-long", arguments={"code": LONG})]),
        ScriptedTurn(blocks=[Text(text="It was interrupted.")]),
    )
    await pilot.press(*"run the long loop", "enter")
    await until(pilot, lambda: bool(app.screen.query(ToolCard)) and "started" in card_text(last_card(app)), 90)
    await pilot.press(*"/kernel interrupt", "enter")
    await until(pilot, lambda: "It was interrupted." in answers(app), 60)
    shown = card_text(last_card(app))
    assert "KeyboardInterrupt" in shown and "all done" not in shown
    assert any("Interrupted the kernel" in text for text in notices(app))
    sent = json.dumps(llm.requests[-1].body["messages"])
    assert "KeyboardInterrupt" in sent  # the model got the interrupted output


async def restart_loses_the_variables(pilot: Pilot[None], llm: ScriptedLLMServer) -> None:
    """A variable set, the kernel restarted with /kernel restart: idle again, and the variable is gone."""
    app = pilot.app
    assert isinstance(app, PrimeApp)
    footer = app.screen.query_one(StatusFooter)
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "x = 41"})]),
        ScriptedTurn(blocks=[Text(text="x is set.")]),
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "print(x + 1)"})]),
        ScriptedTurn(blocks=[Text(text="x is gone.")]),
    )
    await pilot.press(*"set x", "enter")
    await until(pilot, lambda: "x is set." in answers(app), 90)
    await until(pilot, lambda: footer.info.kernel_state == "idle")
    await pilot.press(*"/kernel restart", "enter")
    await until(pilot, lambda: any("The kernel was restarted" in text for text in notices(app)), 90)
    await until(pilot, lambda: footer.info.kernel_state == "idle")
    await pilot.press(*"use x", "enter")
    await until(pilot, lambda: "x is gone." in answers(app), 90)
    assert "NameError" in card_text(last_card(app))
    sent = json.dumps(llm.requests[-1].body["messages"])
    assert "The user restarted the kernel" in sent  # the model is told why its variables are gone


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
