"""The session's history in the app: /tree (switch, summary, fork, label, filters), /fork, /clone, /hotkeys.

Driven by Pilot on a real in-process session on the scripted LLM server (`test_tui_nav_attached.py` runs
the same through a Jupyter server).
"""

from __future__ import annotations

import io

import pytest
from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.screens.fork_picker import ForkPicker
from prime_jupyter.cli.tui.screens.hotkeys import HotkeysScreen
from prime_jupyter.cli.tui.screens.tree import TreeScreen
from prime_jupyter.cli.tui.widgets.editor import PromptEditor
from prime_jupyter.cli.tui.widgets.message import UserMessageView
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Static
from tui_kit import SIZE, answers, app_on, until

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text


def tree(app: PrimeApp) -> TreeScreen | None:
    return app.screen if isinstance(app.screen, TreeScreen) else None


def user_messages(app: PrimeApp) -> list[str]:
    return [str(view.content) for view in app.screen.query(UserMessageView)]


def highlighted_preview(app: PrimeApp) -> str | None:
    screen = tree(app)
    row = screen.highlighted() if screen is not None else None
    return row.node.preview if row is not None else None


async def two_turns(pilot: Pilot[None], llm: ScriptedLLMServer) -> None:
    """first → a1, second → a2, through the editor."""
    llm.enqueue(ScriptedTurn(blocks=[Text(text="a1")]), ScriptedTurn(blocks=[Text(text="a2")]))
    for text, answer in (("first", "a1"), ("second", "a2")):
        await pilot.press(*text, "enter")
        await until(pilot, lambda answer=answer: answer in answers(pilot.app))  # type: ignore[misc]
    await until(pilot, lambda: not pilot.app.screen.feed.running)  # type: ignore[attr-defined]


async def open_tree_at(pilot: Pilot[None], preview: str, opener: tuple[str, ...] = ("/tree", "enter")) -> TreeScreen:
    """Open the tree (typing `/tree`, or with the keys given) and move the cursor up to the row `preview`."""
    app = pilot.app
    assert isinstance(app, PrimeApp)
    for key in opener:
        await (pilot.press(*key) if key.startswith("/") else pilot.press(key))
    await until(pilot, lambda: tree(app) is not None and bool(tree(app).rows))  # type: ignore[union-attr]
    screen = tree(app)
    assert screen is not None
    for _ in range(len(screen.rows)):
        if highlighted_preview(app) == preview:
            return screen
        await pilot.press("up")
    raise AssertionError(f"no row {preview!r} in {[row.node.preview for row in screen.rows]}")


async def switch_and_continue(pilot: Pilot[None], connection: AgentConnection, llm: ScriptedLLMServer) -> None:
    """Switch back to a1 from the tree, continue on a new branch there, then switch back to the old one."""
    app = pilot.app
    assert isinstance(app, PrimeApp)
    await two_turns(pilot, llm)
    await open_tree_at(pilot, "a1")
    await pilot.press("enter")
    await until(pilot, lambda: tree(app) is None and user_messages(app) == ["first"])
    assert "a2" not in answers(app)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="b2")]))
    await pilot.press(*"another way", "enter")
    await until(pilot, lambda: "b2" in answers(app))
    assert user_messages(app) == ["first", "another way"]
    sent = str(llm.requests[-1].body["messages"])
    assert "first" in sent and "another way" in sent and "second" not in sent  # the model saw the new branch
    view = await connection.get_session_view()
    a1 = next(node for node in view.nodes if node.preview == "a1")
    assert len([node for node in view.nodes if node.parent_id == a1.id]) == 2  # a branch point now
    screen = await open_tree_at(pilot, "a2")
    assert any(row.branches == 2 for row in screen.rows)
    await pilot.press("enter")
    await until(pilot, lambda: user_messages(app) == ["first", "second"] and "a2" in answers(app))


async def fork_from_the_tree(pilot: Pilot[None], connection: AgentConnection, llm: ScriptedLLMServer) -> None:
    app = pilot.app
    assert isinstance(app, PrimeApp)
    await two_turns(pilot, llm)
    source = (await connection.get_state()).session_id
    await open_tree_at(pilot, "second")
    await pilot.press("f")
    editor = app.screen.query_one(PromptEditor)
    await until(pilot, lambda: tree(app) is None and editor.text == "second" and user_messages(app) == ["first"])
    state = await connection.get_state()
    assert state.session_id != source and state.message_count == 2


async def label_and_filter(pilot: Pilot[None], connection: AgentConnection, llm: ScriptedLLMServer) -> None:
    app = pilot.app
    assert isinstance(app, PrimeApp)
    await two_turns(pilot, llm)
    first = await open_tree_at(pilot, "first")
    await pilot.press("l", *"the start", "enter")
    await until(pilot, lambda: tree(app) not in (None, first))  # opened again, on the same row
    screen = tree(app)
    assert screen is not None and highlighted_preview(app) == "first"
    assert [row.node.label for row in screen.rows if row.node.preview == "first"] == ["the start"]
    labels = {node.preview: node.label for node in (await connection.get_session_view()).nodes if node.label}
    assert labels == {"first": "the start"}
    await pilot.press("b")
    assert [row.node.preview for row in screen.rows] == ["first"]
    await pilot.press("u")
    assert [row.node.preview for row in screen.rows] == ["first", "second"]
    await pilot.press("u")
    assert [row.node.preview for row in screen.rows] == ["first", "a1", "second", "a2"]
    await pilot.press("escape")
    await until(pilot, lambda: tree(app) is None)


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
        await two_turns(pilot, llm)
        llm.enqueue(ScriptedTurn(blocks=[Text(text="They asked a second question.")]))
        await open_tree_at(pilot, "a1")
        await pilot.press("s")
        await until(pilot, lambda: tree(app) is None and "a2" not in answers(app))
        shown = user_messages(app)
        assert shown[0] == "first" and "They asked a second question." in shown[1]  # the summary, in line
        view = await connection.get_session_view()
        summaries = [node for node in view.nodes if node.type == "branch_summary"]
        assert len(summaries) == 1 and summaries[0].id == view.leaf_id
        assert "They asked a second question." in str(summaries[0].preview)


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
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, HotkeysScreen))
