"""Slash commands: the menu, /model, /resume, /name, /session, /help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.screens.help import HelpScreen
from prime_jupyter.cli.tui.screens.model_picker import ModelPicker
from prime_jupyter.cli.tui.screens.session_picker import SessionPicker
from prime_jupyter.cli.tui.widgets.command_menu import CommandMenu
from prime_jupyter.cli.tui.widgets.editor import PromptEditor
from prime_jupyter.cli.tui.widgets.message import Notice, UserMessageView
from prime_jupyter.cli.tui.widgets.status_footer import StatusFooter
from textual.widgets import OptionList
from tui_kit import SIZE, answers, app_on, local_connection, until

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


@pytest.mark.asyncio
async def test_the_menu_completes_a_command(connection: InProcessAgentConnection) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("/", "m", "o")
        menu = app.screen.query_one(CommandMenu)
        assert menu.display and menu.chosen() == "/mode "  # /mode sorts before /model
        await pilot.press("down")
        assert menu.chosen() == "/model "
        await pilot.press("tab")
        assert app.screen.query_one(PromptEditor).text == "/model "
        await until(pilot, lambda: menu.chosen() == "/model scripted/m1")  # now the model's completions


@pytest.mark.asyncio
async def test_model_picks_from_the_connection_s_models(connection: InProcessAgentConnection) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "scripted/m1" in str(app.screen.query_one(StatusFooter).info.model))
        await pilot.press(*"/model", "enter")
        await until(pilot, lambda: isinstance(app.screen, ModelPicker))
        listed = app.screen.query_one(OptionList)
        ids = [str(listed.get_option_at_index(i).id) for i in range(listed.option_count)]
        assert ids[:2] == ["scripted/m1", "scripted/m2"] and len(ids) > 2  # the usable ones first, the built-in after
        assert listed.highlighted == 0  # the current one
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


@pytest.mark.asyncio
async def test_arguments_complete_from_the_connection_s_extensions(connection: InProcessAgentConnection) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        footer = app.screen.query_one(StatusFooter)
        await until(pilot, lambda: footer.info.model is not None)
        await pilot.press(*"/model scripted/m")
        menu = app.screen.query_one(CommandMenu)
        assert menu.display and menu.chosen() == "/model scripted/m1"
        await pilot.press("down", "tab")
        assert app.screen.query_one(PromptEditor).text == "/model scripted/m2"
        await pilot.press("enter")
        await until(pilot, lambda: footer.info.model == "scripted/m2")


@pytest.mark.asyncio
async def test_shift_tab_cycles_the_thinking_level(connection: InProcessAgentConnection) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        footer = app.screen.query_one(StatusFooter)
        await until(pilot, lambda: footer.info.thinking is not None)
        levels = (await connection.get_state()).available_thinking_levels
        before = footer.info.thinking
        await pilot.press("shift+tab")
        await until(pilot, lambda: footer.info.thinking != before)
        assert footer.info.thinking == levels[(levels.index(str(before)) + 1) % len(levels)]
        await pilot.press(*"/thinking off", "enter")
        await until(pilot, lambda: footer.info.thinking == "off")


@pytest.mark.asyncio
async def test_new_export_and_compact(home: Path, llm: ScriptedLLMServer) -> None:
    settings = json.loads((home / "settings.json").read_text())
    (home / "settings.json").write_text(json.dumps({**settings, "compaction": {"keepRecentTokens": 1}}))
    connection = local_connection(home)
    try:
        await _new_export_and_compact(connection, llm)
    finally:
        await connection.dispose()


async def _new_export_and_compact(connection: InProcessAgentConnection, llm: ScriptedLLMServer) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="first answer")]),
        ScriptedTurn(blocks=[Text(text="second answer")]),
        ScriptedTurn(blocks=[Text(text="## Summary\nThey asked twice.")]),
        ScriptedTurn(blocks=[Text(text="## Summary\nThey asked twice.")]),
    )
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        for text in ("first", "second"):
            await pilot.press(*text, "enter")
            await until(pilot, lambda text=text: f"{text} answer" in answers(app))  # type: ignore[misc]
        await pilot.press(*"/export jsonl", "enter")
        await until(pilot, lambda: any("Exported to" in str(n.content) for n in app.screen.query(Notice)))
        exported = next(str(n.content) for n in app.screen.query(Notice) if "Exported to" in str(n.content))
        assert Path(exported.removeprefix("Exported to ").strip()).is_file()
        await pilot.press(*"/export ipynb", "enter")
        await until(pilot, lambda: any(".ipynb" in str(n.content) for n in app.screen.query(Notice)))
        notebook = next(str(n.content) for n in app.screen.query(Notice) if ".ipynb" in str(n.content))
        cells = json.loads(Path(notebook.removeprefix("Exported to ").strip()).read_text())["cells"]
        assert [c["cell_type"] for c in cells[:2]] == ["markdown", "markdown"] and "first" in "".join(
            cells[0]["source"]
        )
        await pilot.press(*"/compact", "enter")
        await until(pilot, lambda: any("Context compacted" in str(n.content) for n in app.screen.query(Notice)))
        first_id = (await connection.get_state()).session_id
        await pilot.press(*"/new", "enter")
        await until(pilot, lambda: not app.screen.query(UserMessageView))
        assert (await connection.get_state()).session_id != first_id


@pytest.mark.asyncio
async def test_kernel_says_what_kernel_the_session_has(home: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "1 + 1"})]),
        ScriptedTurn(blocks=[Text(text="two")]),
    )
    connection = local_connection(home, tools=["ipython"])
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"add", "enter")
            await until(pilot, lambda: "two" in answers(app), within=60)
            await pilot.press(*"/kernel", "enter")
            await until(pilot, lambda: any("The kernel is idle" in str(n.content) for n in app.screen.query(Notice)))
            await until(pilot, lambda: app.screen.query_one(StatusFooter).info.kernel_state == "idle")
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_the_session_picker_renames_and_deletes(home: Path, llm: ScriptedLLMServer) -> None:
    for question in ("alpha question", "beta question"):
        llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
        earlier = local_connection(home)
        await earlier.prompt(question)
        await earlier.wait_for_idle()
        await earlier.dispose()
    connection = local_connection(home)

    def picker(app: PrimeApp) -> SessionPicker | None:
        return app.screen if isinstance(app.screen, SessionPicker) else None

    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"/resume", "enter")
            await until(pilot, lambda: picker(app) is not None)
            first = picker(app)
            await pilot.press(*"alpha", "ctrl+r", *"renamed one", "enter")
            await until(pilot, lambda: picker(app) not in (None, first))
            names = {s.name for s in (await connection.list_sessions("all")).sessions}
            assert "renamed one" in names
            second = picker(app)
            await pilot.press(*"beta", "ctrl+d", "ctrl+d")
            await until(pilot, lambda: picker(app) not in (None, second))
            titles = [s.title for s in (await connection.list_sessions("all")).sessions]
            assert not any("beta" in title for title in titles) and any("renamed one" in t for t in titles)
            await pilot.press("escape")
            await until(pilot, lambda: picker(app) is None)
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_session_shows_the_spend_against_the_budgets(home: Path) -> None:
    settings = json.loads((home / "settings.json").read_text())
    (home / "settings.json").write_text(json.dumps({**settings, "budget": {"sessionUsd": 5, "dailyUsd": 20}}))
    connection = local_connection(home)
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"/session", "enter")
            expected = "Budget: $0.00 of $5.00 this session; $0.00 of $20.00 today"
            await until(pilot, lambda: any(expected in str(n.content) for n in app.screen.query(Notice)))
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_a_prompt_template_is_in_the_menu_and_runs_expanded(home: Path, llm: ScriptedLLMServer) -> None:
    (home / "prompts").mkdir()
    (home / "prompts" / "tidy.md").write_text("---\ndescription: tidy a frame\n---\nTidy the frame $1.")
    llm.enqueue(ScriptedTurn(blocks=[Text(text="Tidied.")]))
    connection = local_connection(home)
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"/tid")
            menu = app.screen.query_one(CommandMenu)
            assert menu.display and menu.chosen() == "/tidy "
            await pilot.press("tab", *"sales", "enter")
            await until(pilot, lambda: "Tidied." in answers(app))
            body = llm.requests[-1].body
            assert isinstance(body, dict) and body["messages"][-1]["content"][0]["text"] == "Tidy the frame sales."
    finally:
        await connection.dispose()
