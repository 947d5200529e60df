"""A shell command's card runs live (issue 16): its output shows while it runs, in every app watching.

The command is run by another caller than the app (the test, on the same in-process connection; attached,
a second client of the session in a real Jupyter server), so the card this app shows comes from the
session's events alone. The command waits for a file the test makes: "shown before it ends" needs no clock.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from kit.server import own_jupyter
from prime_jupyter.cli.tui.widgets.shell_card import LIVE_CHARS, ShellCard
from rich.console import Console
from test_snapshots import connected
from test_tui_shell import shown
from textual.pilot import Pilot
from textual.widgets import Static
from tui_kit import SIZE, app_on, until

from prime_jupyter.connection import ServerTarget, open_connection
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.connection.types import ConnectionEvent, SessionEventReceived
from prime_jupyter.protocol.events import ShellExecutionOutput
from prime_jupyter.protocol.shell import ShellResult
from prime_jupyter.testing import ScriptedLLMServer
from prime_jupyter.testing.jupyter_process import TOKEN, JupyterProcess, write_agent_dir

WAITS = "echo first-line; while [ ! -e go ]; do sleep 0.02; done; echo second-line"


def drawn(card: ShellCard) -> str:
    """What the card's widgets were last given to draw (not what the card would draw now)."""
    console = Console(width=100, record=True, color_system=None, file=io.StringIO())
    for part in card.query(Static):
        console.print(part.content)
    return console.export_text()


def card_of(pilot: Pilot[None]) -> ShellCard | None:
    cards = list(pilot.app.screen.query(ShellCard))
    return cards[-1] if cards else None


async def watch_a_command(pilot: Pilot[None], runner: AgentConnection, cwd: Path) -> ShellCard:
    """`runner` runs `WAITS`; the app shows its first line while it waits, then its end."""
    await connected(pilot)
    running = asyncio.ensure_future(runner.run_shell(WAITS, True))
    await until(pilot, lambda: (c := card_of(pilot)) is not None and "\nfirst-line\n" in drawn(c))
    card = card_of(pilot)
    assert card is not None and card.running and not running.done()
    assert "$ " + WAITS in drawn(card) and "running… (esc cancels)" in drawn(card)
    assert "second-line" not in card.live_output
    (cwd / "go").touch()
    result = await asyncio.wait_for(running, 30)
    await until(pilot, lambda: card.result is not None)
    assert card.result is not None and card.result.entry_id == result.entry_id
    assert "first-line\nsecond-line" in drawn(card) and "exit code 0" in drawn(card)
    return card


@pytest.mark.asyncio
async def test_a_command_run_by_another_caller_shows_live(connection: InProcessAgentConnection, home: Path) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await watch_a_command(pilot, connection, home.parent / "work")
        assert len(app.screen.query(ShellCard)) == 1


@pytest.mark.asyncio
async def test_the_apps_own_command_shows_its_output_while_it_runs(
    connection: InProcessAgentConnection, home: Path
) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*("!" + WAITS), "enter")
        await until(pilot, lambda: (c := card_of(pilot)) is not None and "\nfirst-line\n" in drawn(c))
        card = card_of(pilot)
        assert card is not None and card.running
        (home.parent / "work" / "go").touch()
        await until(pilot, lambda: card.result is not None)
        assert card.result is not None and card.result.output == "first-line\nsecond-line"
        assert len(app.screen.query(ShellCard)) == 1  # its own events found its card


@pytest.mark.asyncio
async def test_a_card_keeps_only_the_end_of_a_flood(connection: InProcessAgentConnection) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"!yes flood | head -c 3000000; echo; echo the-end; sleep 60", "enter")
        await until(pilot, lambda: (c := card_of(pilot)) is not None and "the-end" in c.live_output)
        card = card_of(pilot)
        assert card is not None and len(card.live_output) <= LIVE_CHARS
        assert "only the end of the output is shown" in shown(card)
        await pilot.press("escape")
        await until(pilot, lambda: card.result is not None)
        assert card.result is not None and card.result.cancelled


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    yield from own_jupyter(tmp_path_factory, "tui-shell-live")


@pytest.mark.asyncio
async def test_an_attached_app_shows_another_clients_command_live_and_esc_cancels_it(
    jupyter: JupyterProcess, llm: ScriptedLLMServer
) -> None:
    write_agent_dir(jupyter.agent_dir, llm)
    target = ServerTarget(cwd=jupyter.root_dir / "work", url=jupyter.endpoint.url, token=TOKEN, model="scripted/m1")
    runner = await open_connection(target)
    state = await runner.get_state()
    same = ServerTarget(cwd=Path(state.cwd), url=jupyter.endpoint.url, token=TOKEN, session=state.session_id)
    watcher = await open_connection(same)
    try:
        app = app_on(watcher, attached=True)
        async with app.run_test(size=SIZE) as pilot:
            await watch_a_command(pilot, runner, Path(state.cwd))
            (Path(state.cwd) / "go").unlink()
            running = asyncio.ensure_future(runner.run_shell("echo waiting; sleep 60", False))
            await until(pilot, lambda: (c := card_of(pilot)) is not None and "\nwaiting\n" in drawn(c))
            card = card_of(pilot)
            assert card is not None and "(not sent to the agent)" in shown(card)
            await pilot.press("escape")  # this app aborts the session: the other client's command stops
            result = await asyncio.wait_for(running, 30)
            await until(pilot, lambda: card.result is not None)
            assert result.cancelled and card.result is not None and card.result.cancelled and "cancelled" in shown(card)
    finally:
        await watcher.dispose()
        await runner.dispose()


async def output_seen(connection: AgentConnection, text: str) -> None:
    """Until `connection` has sent a shell output chunk holding `text`."""
    seen = asyncio.Event()

    def watch(event: ConnectionEvent) -> None:
        if isinstance(event, SessionEventReceived) and isinstance(event.event, ShellExecutionOutput):
            if text in event.event.chunk:
                seen.set()

    stop = connection.subscribe(watch)
    try:
        await asyncio.wait_for(seen.wait(), 30)
    finally:
        stop()


async def open_mid_command(pilot: Pilot[None], running: asyncio.Future[ShellResult], cwd: Path) -> None:
    """The app opened while `WAITS` runs: its card is there with the first line from the snapshot, before
    any more output; the command's events then finish that card."""
    await connected(pilot)
    await until(pilot, lambda: (c := card_of(pilot)) is not None and "\nfirst-line\n" in drawn(c))
    card = card_of(pilot)
    assert card is not None and card.running and not running.done() and card.live_output == "first-line\n"
    (cwd / "go").touch()
    result = await asyncio.wait_for(running, 30)
    await until(pilot, lambda: card.result is not None)
    assert card.result is not None and card.result.entry_id == result.entry_id
    assert len(pilot.app.screen.query(ShellCard)) == 1


@pytest.mark.asyncio
async def test_an_app_opened_while_a_command_runs_shows_its_card_at_once(
    connection: InProcessAgentConnection, home: Path
) -> None:
    running = asyncio.ensure_future(connection.run_shell(WAITS, True))
    await output_seen(connection, "first-line")
    async with app_on(connection).run_test(size=SIZE) as pilot:
        await open_mid_command(pilot, running, home.parent / "work")


@pytest.mark.asyncio
async def test_an_app_attached_while_a_command_runs_in_the_server_shows_its_card_at_once(
    jupyter: JupyterProcess, llm: ScriptedLLMServer
) -> None:
    write_agent_dir(jupyter.agent_dir, llm)
    target = ServerTarget(cwd=jupyter.root_dir / "work", url=jupyter.endpoint.url, token=TOKEN, model="scripted/m1")
    runner = await open_connection(target)
    state = await runner.get_state()
    cwd = Path(state.cwd)
    (cwd / "go").unlink(missing_ok=True)
    running = asyncio.ensure_future(runner.run_shell(WAITS, True))
    await output_seen(runner, "first-line")
    same = ServerTarget(cwd=cwd, url=jupyter.endpoint.url, token=TOKEN, session=state.session_id)
    watcher = await open_connection(same)
    try:
        async with app_on(watcher, attached=True).run_test(size=SIZE) as pilot:
            await open_mid_command(pilot, running, cwd)
    finally:
        (cwd / "go").unlink(missing_ok=True)
        await watcher.dispose()
        await runner.dispose()
