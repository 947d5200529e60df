"""The user's shell commands stream (issue 16): every connection to the session sees a `!cmd` run.

In process the second watcher is another subscriber of the connection; attached, it is a second
`HttpAgentConnection` to the same session in a real Jupyter server. The commands wait for a file the test
makes, so "seen before it ends" needs no clock: the command cannot end until the test lets it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from prime_jupyter.connection import ServerTarget, open_connection
from prime_jupyter.connection.types import ConnectionEvent, SessionEventReceived
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.events import (
    SessionEvent,
    ShellExecutionEnd,
    ShellExecutionOutput,
    ShellExecutionStart,
)
from prime_jupyter.protocol.snapshot import RunningShell
from prime_jupyter.testing.jupyter_process import JupyterProcess
from prime_jupyter.tools.user_command import MAX_CHUNK_BYTES

WAITS = "echo first; while [ ! -e go ]; do sleep 0.02; done; echo second"
"""Prints a line, then waits for the file `go` in its directory before it prints the next and ends."""


class Watcher:
    """Everything one subscriber saw of the session's shell commands."""

    def __init__(self) -> None:
        self.events: list[SessionEvent] = []
        self._changed = asyncio.Event()

    def __call__(self, event: ConnectionEvent) -> None:
        if isinstance(event, SessionEventReceived) and event.event.type.startswith("shell_execution"):
            self.events.append(event.event)
            self._changed.set()

    def output(self) -> str:
        return "".join(e.chunk for e in self.events if isinstance(e, ShellExecutionOutput))

    def end(self) -> ShellExecutionEnd | None:
        return next((e for e in self.events if isinstance(e, ShellExecutionEnd)), None)

    async def until(self, check: Callable[[], object]) -> None:
        async with asyncio.timeout(30):
            while not check():
                self._changed.clear()
                await self._changed.wait()


@pytest_asyncio.fixture
async def second(connection: Any, request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """Another connection to `connection`'s session: attached, a second client; in process, the same one."""
    if request.node.callspec.params["connection"] != "http":
        yield connection
        return
    server: JupyterProcess = request.getfixturevalue("jupyter")
    state = await connection.get_state()
    endpoint = server.endpoint
    target = ServerTarget(cwd=Path(state.cwd), url=endpoint.url, token=endpoint.token, session=state.session_id)
    other = await open_connection(target)
    yield other
    await other.dispose()


@pytest.mark.asyncio
async def test_a_second_connection_sees_the_output_before_the_command_ends(connection: Any, second: Any) -> None:
    watcher = Watcher()
    second.subscribe(watcher)
    cwd = Path((await connection.get_state()).cwd)
    running = asyncio.ensure_future(connection.run_shell(WAITS, True, "cmd-1"))
    await watcher.until(lambda: "first" in watcher.output())
    assert not running.done() and watcher.end() is None
    start = watcher.events[0]
    assert isinstance(start, ShellExecutionStart) and (start.execution_id, start.command) == ("cmd-1", WAITS)
    (cwd / "go").touch()
    result = await asyncio.wait_for(running, 30)
    await watcher.until(watcher.end)
    end = watcher.end()
    assert result.output == "first\nsecond" and result.exit_code == 0 and result.execution_id == "cmd-1"
    assert end is not None and (end.output, end.exit_code, end.entry_id) == (result.output, 0, result.entry_id)
    assert {e.execution_id for e in watcher.events} == {"cmd-1"}
    assert watcher.output() == "first\nsecond\n"
    messages = await second.get_messages()
    kept = messages.messages[messages.entry_ids.index(result.entry_id)]
    assert kept.role == "user" and "Ran `" + WAITS + "`" in kept.text() and "first\nsecond" in kept.text()


@pytest.mark.asyncio
async def test_a_command_cancelled_from_the_other_connection_ends_for_both(connection: Any, second: Any) -> None:
    watcher = Watcher()
    second.subscribe(watcher)
    running = asyncio.ensure_future(connection.run_shell("echo started; sleep 60", False))
    await watcher.until(lambda: "started" in watcher.output())
    await second.abort()
    result = await asyncio.wait_for(running, 30)
    await watcher.until(watcher.end)
    end = watcher.end()
    assert result.cancelled and result.exit_code is None and result.output == "started"
    assert end is not None and end.cancelled and end.exit_code is None and not end.include_in_context
    assert end.execution_id == result.execution_id and end.entry_id == result.entry_id is not None


@pytest.mark.asyncio
async def test_a_command_that_cannot_run_ends_with_its_error(connection: Any, second: Any) -> None:
    watcher = Watcher()
    second.subscribe(watcher)
    with pytest.raises((ValueError, PrimeError), match="empty"):
        await connection.run_shell("   ", True, "blank")
    await watcher.until(watcher.end)
    end = watcher.end()
    assert end is not None and end.execution_id == "blank" and end.error is not None and "empty" in end.error


@pytest.mark.asyncio
async def test_a_snapshot_taken_while_a_command_runs_holds_it_and_its_output_so_far(
    connection: Any, second: Any
) -> None:
    watcher = Watcher()
    second.subscribe(watcher)
    cwd = Path((await connection.get_state()).cwd)
    running = asyncio.ensure_future(connection.run_shell(WAITS, False, "cmd-2"))
    await watcher.until(lambda: "first" in watcher.output())
    snap = await second.get_snapshot()
    shell = RunningShell(execution_id="cmd-2", command=WAITS, include_in_context=False, output="first\n")
    assert snap.running_shells == [shell]
    (cwd / "go").touch()
    await asyncio.wait_for(running, 30)
    await watcher.until(watcher.end)
    assert (await second.get_snapshot()).running_shells == []


@pytest.mark.asyncio
async def test_a_snapshot_keeps_only_the_end_of_a_running_floods_output(connection: Any, second: Any) -> None:
    watcher = Watcher()
    second.subscribe(watcher)
    flood = "head -c 100000 /dev/zero | tr '\\0' a; printf 'é%.0s' $(seq 20000); echo; echo the-end; sleep 60"
    running = asyncio.ensure_future(connection.run_shell(flood, True, "flood"))
    await watcher.until(lambda: "the-end" in watcher.output())
    (shell,) = (await second.get_snapshot()).running_shells
    assert shell.output.endswith("é\nthe-end\n") and len(shell.output.encode()) <= MAX_CHUNK_BYTES
    assert shell.skipped + len(shell.output.encode()) == 100_000 + 2 * 20_000 + len("\nthe-end\n")
    await second.abort()
    assert (await asyncio.wait_for(running, 30)).cancelled
