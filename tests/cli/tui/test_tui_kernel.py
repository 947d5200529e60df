"""`/kernel interrupt` and `/kernel restart` in the app, on the real kernel of an in-process session
(`test_tui_nav_attached.py` does the same on a kernel of a Jupyter server)."""

from __future__ import annotations

from pathlib import Path

import pytest
from nav_kit import interrupt_a_long_call, notices, restart_loses_the_variables
from prime_jupyter.cli.tui.widgets.status_footer import StatusFooter
from tui_kit import SIZE, app_on, local_connection, until

from prime_jupyter.testing import ScriptedLLMServer


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


@pytest.mark.asyncio
async def test_the_footer_shows_the_kernel_ready_without_a_run(home: Path) -> None:
    """The session starts its kernel at launch and no event says when it is ready: the footer asks until
    it is (it said "kernel starting" until the first tool call)."""
    connection = local_connection(home, tools=["ipython"])
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            footer = app.screen.query_one(StatusFooter)
            await until(pilot, lambda: footer.info is not None and footer.info.kernel_state is not None)
            await until(pilot, lambda: footer.info.kernel_state == "idle", within=60)
    finally:
        await connection.dispose()
