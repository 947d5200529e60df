"""The app attached to a session in a real `jupyter server` subprocess (through `ServerTarget`).

Quitting the app leaves the session running in the server; a question the session asks opens the dialog
here and closes when another connection answers it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from kit.server import own_jupyter
from prime_jupyter.cli.tui.screens.question import QuestionDialog
from prime_jupyter.cli.tui.widgets.status_footer import StatusFooter
from tui_kit import SIZE, answers, app_on, until

from prime_jupyter.connection import ServerTarget, open_connection
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.protocol.questions import SelectAnswer
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.jupyter_process import TOKEN, JupyterProcess, write_agent_dir


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    yield from own_jupyter(tmp_path_factory, "tui-attach")


@pytest.fixture
def server(jupyter: JupyterProcess, llm: ScriptedLLMServer) -> JupyterProcess:
    write_agent_dir(jupyter.agent_dir, llm)
    return jupyter


async def attach(server: JupyterProcess, session: str | None = None) -> AgentConnection:
    target = ServerTarget(
        cwd=server.root_dir / "work", url=server.endpoint.url, token=TOKEN, session=session, model="scripted/m1"
    )
    return await open_connection(target)


@pytest.mark.asyncio
async def test_an_attached_app_streams_and_quitting_leaves_the_session(
    server: JupyterProcess, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="An answer **from the server**.", chunks=4)]))
    connection = await attach(server)
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"hello server", "enter")
        await until(pilot, lambda: "An answer **from the server**." in answers(app))
        session_id = (await connection.get_state()).session_id
    await connection.dispose()
    again = await attach(server, session_id)
    try:
        state = await again.get_state()
        assert state.session_id == session_id and state.message_count == 2
        listed = {s.session_id: s.status for s in (await again.list_sessions("all")).sessions}
        assert listed[session_id] in ("idle", "running")
    finally:
        await again.dispose()


@pytest.mark.asyncio
async def test_a_question_answered_from_another_connection_closes_the_dialog(
    server: JupyterProcess, llm: ScriptedLLMServer
) -> None:
    question = {"question": "Which file?", "kind": "select", "options": ["a.csv", "b.csv"]}
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ask", arguments=question)]),
        ScriptedTurn(blocks=[Text(text="Using b.csv.")]),
    )
    connection = await attach(server)
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"pick one", "enter")
            await until(pilot, lambda: isinstance(app.screen, QuestionDialog))
            dialog = app.screen
            assert isinstance(dialog, QuestionDialog)
            other = await attach(server, (await connection.get_state()).session_id)
            try:
                b = next(o.id for o in dialog.question.options if o.label == "b.csv")
                assert await other.answer_question(dialog.question.id, SelectAnswer(option_ids=[b]))
            finally:
                await other.dispose()
            await until(pilot, lambda: not isinstance(app.screen, QuestionDialog))
            await until(pilot, lambda: "Using b.csv." in answers(app))
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_the_app_reconnects_after_the_server_restarts(llm: ScriptedLLMServer, tmp_path: Path) -> None:
    (tmp_path / "agent").mkdir()
    (tmp_path / "work").mkdir()
    write_agent_dir(tmp_path / "agent", llm)
    server = await asyncio.to_thread(JupyterProcess(tmp_path / "agent", tmp_path, tmp_path / "runtime").start)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="before the restart")]), ScriptedTurn(blocks=[Text(text="after it")]))
    connection = await attach(server)
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            footer = app.screen.query_one(StatusFooter)
            await pilot.press(*"first", "enter")
            await until(pilot, lambda: "before the restart" in answers(app))
            await asyncio.to_thread(server.stop)  # in a thread: the app's loop keeps running meanwhile
            await until(pilot, lambda: footer.info.link == "reconnecting", within=60)
            await asyncio.to_thread(server.start)
            await until(pilot, lambda: footer.info.link == "connected", within=60)
            await until(pilot, lambda: "before the restart" in answers(app))
            await pilot.press(*"second", "enter")
            await until(pilot, lambda: "after it" in answers(app), within=60)
    finally:
        await connection.dispose()
        await asyncio.to_thread(server.stop)
