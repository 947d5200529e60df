"""`!cmd` and `!!cmd`: the user's own shell commands, run in the session's directory and shown as a card.

`!cmd`'s output goes into the agent's context (the next request to the scripted provider carries it) and
into the transcript (a resumed session shows it); `!!cmd`'s does not reach the agent. Esc cancels a
command still running. The same, attached to a session in a real Jupyter server, runs in the server.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from kit.server import own_jupyter
from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.widgets.message import UserMessageView
from prime_jupyter.cli.tui.widgets.shell_card import ShellCard
from rich.console import Console
from test_snapshots import SnapCompare, connected
from textual.pilot import Pilot
from tui_kit import SIZE, answers, app_on, local_connection, until

from prime_jupyter.connection import ServerTarget, open_connection
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text
from prime_jupyter.testing.jupyter_process import TOKEN, JupyterProcess, write_agent_dir


def shown(card: ShellCard) -> str:
    console = Console(width=100, record=True, color_system=None, file=io.StringIO())
    console.print(card.header_text())
    console.print(card.body())
    return console.export_text()


def last_request(llm: ScriptedLLMServer) -> str:
    return json.dumps(llm.requests[-1].body)


async def run(pilot: Pilot[None], line: str) -> ShellCard:
    """Type `line` (a `!` command), send it and wait for its card to be done."""
    before = len(pilot.app.screen.query(ShellCard))
    await pilot.press(*line, "enter")
    await until(pilot, lambda: len(pilot.app.screen.query(ShellCard)) > before)
    card = list(pilot.app.screen.query(ShellCard))[-1]
    await until(pilot, lambda: card.result is not None or card.error is not None)
    return card


@pytest.mark.asyncio
async def test_a_command_runs_in_the_cwd_and_its_output_reaches_the_agent(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer, home: Path
) -> None:
    (home.parent / "work" / "notes.txt").write_text("the notes\n")
    llm.enqueue(ScriptedTurn(blocks=[Text(text="I see the notes.")]))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        card = await run(pilot, "!cat notes.txt; exit 3")
        assert card.result is not None and card.result.exit_code == 3 and card.result.output == "the notes"
        assert "$ cat notes.txt; exit 3" in shown(card) and "exit code 3" in shown(card)
        await pilot.press(*"what do they say?", "enter")
        await until(pilot, lambda: "I see the notes." in answers(app))
    sent = last_request(llm)
    assert "Ran `cat notes.txt; exit 3`" in sent and "the notes" in sent and "Command exited with code 3" in sent


@pytest.mark.asyncio
async def test_a_double_bang_command_is_shown_but_kept_from_the_agent(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="Nothing to see.")]))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        card = await run(pilot, "!!echo private-output")
        assert card.result is not None and card.result.output == "private-output"
        assert "(not sent to the agent)" in shown(card)
        await pilot.press(*"anything?", "enter")
        await until(pilot, lambda: "Nothing to see." in answers(app))
    assert "anything?" in last_request(llm) and "private-output" not in last_request(llm)
    transcript = (await connection.get_state()).session_file
    assert transcript is not None
    kept = [json.loads(line) for line in Path(transcript).read_text().splitlines()]
    shells = [e["message"] for e in kept if e.get("type") == "message" and e["message"]["role"] == "bashExecution"]
    assert shells == [
        {
            "role": "bashExecution",
            "command": "echo private-output",
            "output": "private-output",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "excludeFromContext": True,
            "timestamp": shells[0]["timestamp"],
        }
    ]


@pytest.mark.asyncio
async def test_escape_cancels_a_running_command(connection: InProcessAgentConnection, home: Path) -> None:
    started = home.parent / "work" / "started"
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"!touch started; sleep 60", "enter")
        await until(pilot, started.exists)
        card = pilot.app.screen.query_one(ShellCard)
        assert "running… (esc cancels)" in shown(card)
        await pilot.press("escape")
        await until(pilot, lambda: card.result is not None)
        assert card.result is not None and card.result.cancelled and card.result.exit_code is None
        assert "cancelled" in shown(card)


@pytest.mark.asyncio
async def test_a_resumed_session_shows_the_command_it_ran(home: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="Noted.")]))
    first = local_connection(home)
    try:
        app = app_on(first)
        async with app.run_test(size=SIZE) as pilot:
            await run(pilot, "!echo kept-in-the-transcript")
            await pilot.press(*"remember it", "enter")
            await until(pilot, lambda: "Noted." in answers(app))
    finally:
        await first.dispose()
    again = local_connection(home, mode="continue")
    try:
        app = app_on(again)
        async with app.run_test(size=SIZE) as pilot:
            users = lambda: [str(u.content) for u in app.screen.query(UserMessageView)]  # noqa: E731
            await until(pilot, lambda: len(users()) == 2)
            assert "Ran `echo kept-in-the-transcript`" in users()[0] and "kept-in-the-transcript" in users()[0]
            assert users()[1] == "remember it"
    finally:
        await again.dispose()


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    yield from own_jupyter(tmp_path_factory, "tui-shell")


@pytest.mark.asyncio
async def test_an_attached_app_runs_the_command_in_the_server(jupyter: JupyterProcess, llm: ScriptedLLMServer) -> None:
    write_agent_dir(jupyter.agent_dir, llm)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="Done.")]))
    target = ServerTarget(cwd=jupyter.root_dir / "work", url=jupyter.endpoint.url, token=TOKEN, model="scripted/m1")
    connection = await open_connection(target)
    try:
        cwd = (await connection.get_state()).cwd
        assert Path(cwd).resolve().is_relative_to(jupyter.root_dir.resolve())
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            card = await run(pilot, "!pwd")
            assert card.result is not None and card.result.output == str(Path(cwd).resolve())
            hidden = await run(pilot, "!!echo server-private")
            assert hidden.result is not None and hidden.result.output == "server-private"
            await pilot.press(*"and now?", "enter")
            await until(pilot, lambda: "Done." in answers(app))
    finally:
        await connection.dispose()
    sent = last_request(llm)
    assert "Ran `pwd`" in sent and str(Path(cwd).resolve()) in sent
    assert "server-private" not in sent


def test_a_shell_card(snap_compare: SnapCompare, home: Path) -> None:
    """`!cmd` with its output and exit code, and `!!cmd`, marked as kept from the agent."""

    async def connect() -> AgentConnection:
        return local_connection(home)

    async def ran(pilot: Pilot[None]) -> None:
        await connected(pilot)
        await run(pilot, "!printf 'year,sales\\n2025,10\\n2026,12\\n' > data.csv; wc -l data.csv; exit 1")
        await run(pilot, "!!head -n 2 data.csv")

    app = PrimeApp(connect, cwd_label="~/work", owns_connection=True)
    assert snap_compare(app, terminal_size=(100, 24), run_before=ran)


@pytest.mark.asyncio
async def test_escape_cancels_a_command_running_in_the_server(jupyter: JupyterProcess, llm: ScriptedLLMServer) -> None:
    write_agent_dir(jupyter.agent_dir, llm)
    target = ServerTarget(cwd=jupyter.root_dir / "work", url=jupyter.endpoint.url, token=TOKEN, model="scripted/m1")
    connection = await open_connection(target)
    try:
        started = Path((await connection.get_state()).cwd) / "started"
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"!touch started; sleep 60", "enter")
            await until(pilot, started.exists)  # running in the server (an Esc before it would find nothing)
            card = app.screen.query_one(ShellCard)
            await pilot.press("escape")
            await until(pilot, lambda: card.result is not None)
            assert card.result is not None and card.result.cancelled and "cancelled" in shown(card)
    finally:
        await connection.dispose()
