"""Scenarios of the session's history and its kernel, run by Pilot on the app both in process
(`test_tui_tree.py`, `test_tui_kernel.py`) and attached to a Jupyter server (`test_tui_nav_attached.py`).

Each takes the Pilot of an app on a fresh session and the connection under it (through the seam only),
and asserts what the user sees and what the session holds."""

from __future__ import annotations

import json

from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.screens.tree import TreeScreen
from prime_jupyter.cli.tui.widgets.editor import PromptEditor
from prime_jupyter.cli.tui.widgets.message import Notice, UserMessageView
from prime_jupyter.cli.tui.widgets.status_footer import StatusFooter
from prime_jupyter.cli.tui.widgets.tool_card import ToolCard
from textual.pilot import Pilot
from tui_kit import answers, card_text, until

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


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


async def switch_with_a_summary(pilot: Pilot[None], connection: AgentConnection, llm: ScriptedLLMServer) -> None:
    """Switch back to a1 with `s`: a summary of the branch given up is left there, and shown in line."""
    app = pilot.app
    assert isinstance(app, PrimeApp)
    await two_turns(pilot, llm)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="They asked a second question.")]))
    await open_tree_at(pilot, "a1")
    await pilot.press("s")
    await until(pilot, lambda: tree(app) is None and "a2" not in answers(app))
    shown = user_messages(app)
    assert shown[0] == "first" and "They asked a second question." in shown[1]
    view = await connection.get_session_view()
    summaries = [node for node in view.nodes if node.type == "branch_summary"]
    assert len(summaries) == 1 and summaries[0].id == view.leaf_id
    assert "They asked a second question." in str(summaries[0].preview)


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
    await until(pilot, lambda: tree(app) not in (None, first) and bool(tree(app).rows))  # type: ignore[union-attr]
    screen = tree(app)
    assert screen is not None and highlighted_preview(app) == "first"  # opened again, on the same row
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
