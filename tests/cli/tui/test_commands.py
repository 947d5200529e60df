"""Slash commands: the menu, /model, /resume, /name, /session, /help."""

from __future__ import annotations

from pathlib import Path

import pytest
from prime_jupyter.cli.tui.screens.help import HelpScreen
from prime_jupyter.cli.tui.screens.model_picker import ModelPicker
from prime_jupyter.cli.tui.screens.session_picker import SessionPicker
from prime_jupyter.cli.tui.widgets.command_menu import CommandMenu
from prime_jupyter.cli.tui.widgets.editor import PromptEditor
from prime_jupyter.cli.tui.widgets.message import Notice, UserMessageView
from prime_jupyter.cli.tui.widgets.status_footer import StatusFooter
from tui_kit import SIZE, answers, app_on, local_connection, until

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text


@pytest.mark.asyncio
async def test_the_menu_completes_a_command(connection: InProcessAgentConnection) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("/", "m")
        menu = app.screen.query_one(CommandMenu)
        assert menu.display and menu.chosen() == "model"
        await pilot.press("tab")
        assert app.screen.query_one(PromptEditor).text == "/model "
        assert not menu.display


@pytest.mark.asyncio
async def test_model_picks_from_the_connection_s_models(connection: InProcessAgentConnection) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "scripted/m1" in str(app.screen.query_one(StatusFooter).info.model))
        await pilot.press(*"/model", "enter")
        await until(pilot, lambda: isinstance(app.screen, ModelPicker))
        await pilot.press(*"m2", "enter")
        await until(pilot, lambda: app.screen.query_one(StatusFooter).info.model == "scripted/m2")
        state = await connection.get_state()
        assert state.model is not None and state.model.id == "m2"


@pytest.mark.asyncio
async def test_resume_opens_an_earlier_session(home: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="the earlier answer")]))
    earlier = local_connection(home)
    await earlier.prompt("the earlier question")
    await earlier.wait_for_idle()
    await earlier.dispose()
    connection = local_connection(home)
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"/resume", "enter")
            await until(pilot, lambda: isinstance(app.screen, SessionPicker))
            await pilot.press(*"earlier", "enter")
            await until(pilot, lambda: "the earlier answer" in answers(app))
            assert [str(u.content) for u in app.screen.query(UserMessageView)] == ["the earlier question"]
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_name_and_session(connection: InProcessAgentConnection) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/name my analysis", "enter")
        footer = app.screen.query_one(StatusFooter)
        await until(pilot, lambda: footer.info.session_name == "my analysis")
        await pilot.press(*"/session", "enter")
        await until(pilot, lambda: any("Session " in str(n.content) for n in app.screen.query(Notice)))
        await pilot.press(*"/help", "enter")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, HelpScreen))
