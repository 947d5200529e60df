"""The session's history in the app: /tree (switch, summary, fork, label, filters), /fork, /clone, /hotkeys.

Driven by Pilot on a real in-process session on the scripted LLM server (`test_tui_nav_attached.py` runs
the same through a Jupyter server).
"""

from __future__ import annotations

import io

import pytest
from nav_kit import (
    fork_from_the_tree,
    label_and_filter,
    open_tree_at,
    switch_and_continue,
    switch_with_a_summary,
    tree,
    two_turns,
    user_messages,
)
from prime_jupyter.cli.tui.screens.fork_picker import ForkPicker
from prime_jupyter.cli.tui.screens.hotkeys import HotkeysScreen
from prime_jupyter.cli.tui.widgets.editor import PromptEditor
from rich.console import Console
from textual.widgets import Static
from tui_kit import SIZE, answers, app_on, until

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.testing import ScriptedLLMServer


@pytest.mark.asyncio
async def test_tree_switches_to_another_branch_and_continues_there(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await switch_and_continue(pilot, connection, llm)


@pytest.mark.asyncio
async def test_tree_forks_a_new_session(connection: InProcessAgentConnection, llm: ScriptedLLMServer) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await fork_from_the_tree(pilot, connection, llm)


@pytest.mark.asyncio
async def test_tree_labels_an_entry_and_filters(connection: InProcessAgentConnection, llm: ScriptedLLMServer) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await label_and_filter(pilot, connection, llm)
    path = connection.session.manager.path
    assert path is not None and '"type":"label"' in path.read_text().replace(" ", "")  # kept on disk


@pytest.mark.asyncio
async def test_tree_folds_a_branch_point(connection: InProcessAgentConnection, llm: ScriptedLLMServer) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await switch_and_continue(pilot, connection, llm)
        screen = await open_tree_at(pilot, "a1")
        assert len(screen.rows) == 6
        await pilot.press("left")
        assert [row.node.preview for row in screen.rows] == ["first", "a1"] and screen.rows[1].folded
        await pilot.press("right")
        assert len(screen.rows) == 6


@pytest.mark.asyncio
async def test_switching_with_a_summary_leaves_one_of_the_branch_given_up(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await switch_with_a_summary(pilot, connection, llm)


@pytest.mark.asyncio
async def test_escape_twice_on_an_empty_editor_opens_the_tree(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await two_turns(pilot, llm)
        await pilot.press("x", "escape", "escape")
        assert tree(app) is None  # the editor was not empty
        await pilot.press("backspace")
        await open_tree_at(pilot, "a2", opener=("escape", "escape"))
        await pilot.press("escape")
        await until(pilot, lambda: tree(app) is None)


@pytest.mark.asyncio
async def test_fork_picks_a_user_message_and_clone_copies_the_branch(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await two_turns(pilot, llm)
        source = (await connection.get_state()).session_id
        await pilot.press(*"/clone", "enter")
        await until(pilot, lambda: connection.session.session_id != source)
        clone = connection.session.session_id
        await until(pilot, lambda: user_messages(app) == ["first", "second"] and "a2" in answers(app))
        assert connection.session.manager.header.parent_session is not None
        await pilot.press(*"/fork", "enter")
        await until(pilot, lambda: isinstance(app.screen, ForkPicker))
        await pilot.press("enter")  # the newest message is the one highlighted
        editor = app.screen.query_one(PromptEditor)
        await until(pilot, lambda: editor.text == "second" and user_messages(app) == ["first"])
        assert connection.session.session_id not in (source, clone)


@pytest.mark.asyncio
async def test_hotkeys_lists_the_bindings(connection: InProcessAgentConnection) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/hotkeys", "enter")
        await until(pilot, lambda: isinstance(app.screen, HotkeysScreen))
        console = Console(width=160, record=True, file=io.StringIO(), color_system=None)
        console.print(app.screen.query_one("#hotkeys", Static).content)
        shown = console.export_text()
        for text in ("Ctrl+Q", "Alt+Enter", "fork a new session from here", "Ctrl+R", "Shift+Tab", "Esc"):
            assert text in shown
        assert "scroll the transcript a page up" in shown and "scroll the transcript a page down" in shown
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, HotkeysScreen))
