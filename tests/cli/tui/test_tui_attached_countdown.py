"""Attached to a real Jupyter server whose questions time out quickly (`dialog_timeout`): the dialog counts
down the server's time, closes when it is up, and the conversation says so in the user's words."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from kit.server import own_jupyter
from prime_jupyter.cli.tui.screens.question import QuestionDialog
from prime_jupyter.cli.tui.widgets.message import Notice
from textual.widgets import Static
from tui_kit import SIZE, answers, app_on, until

from prime_jupyter.connection import ServerTarget, open_connection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.jupyter_process import TOKEN, JupyterProcess, write_agent_dir


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    yield from own_jupyter(tmp_path_factory, "tui-countdown", "--PrimeApp.dialog_timeout=4")


@pytest.mark.asyncio
async def test_an_attached_dialog_counts_down_and_closes_when_the_time_is_up(
    jupyter: JupyterProcess, llm: ScriptedLLMServer
) -> None:
    write_agent_dir(jupyter.agent_dir, llm)
    question = {"question": "Delete the cache?", "kind": "confirm"}
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ask", arguments=question)]), ScriptedTurn(blocks=[Text(text="Kept.")])
    )
    target = ServerTarget(cwd=jupyter.root_dir / "work", url=jupyter.endpoint.url, token=TOKEN, model="scripted/m1")
    connection = await open_connection(target)
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"tidy up", "enter")
            await until(
                pilot, lambda: isinstance(app.screen, QuestionDialog) and bool(app.screen.query("#question-time"))
            )
            shown = str(app.screen.query_one("#question-time", Static).content)
            assert shown in ("4 s left", "3 s left", "2 s left"), shown
            await until(pilot, lambda: "Kept." in answers(app))
            assert not isinstance(app.screen, QuestionDialog)
            said = "Nobody answered “Delete the cache?” within 4 s, so the agent went on without an answer."
            assert [str(n.content) for n in app.screen.query(Notice)].count(said) == 1
    finally:
        await connection.dispose()
    assert "The user did not answer" in json.dumps(llm.requests[-1].body)
