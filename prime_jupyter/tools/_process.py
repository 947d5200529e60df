"""Running `bash -c` in its own process group, reading its output, and stopping all of it when asked.

The command runs in a new session (`start_new_session=True`), so its process group holds the command
and everything it starts; a timeout or an abort signals the whole group: SIGTERM first, SIGKILL for
whatever is still there after a short grace. The group is handed to `_keeper`, so that it dies with this
process too, even one killed with SIGKILL. stdout and stderr share one pipe that we own, so output
keeps its interleaving. A background child that inherits the pipe (`sleep 100 &`) would keep it open
forever: once bash itself has exited, reading stops after a short drain.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import shutil
import signal as signals
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.tools import _keeper

__all__ = ["Completion", "run_in_group"]

KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
DRAIN_GRACE = 0.25  # seconds to keep reading after bash exited, for output still in flight
_POLL = 0.05


@dataclass(frozen=True, slots=True)
class Completion:
    """How a command ended: `exit_code` is the shell's status (negative: killed by that signal)."""

    ended: Literal["exited", "timeout", "aborted"]
    exit_code: int


class _PipeReader(asyncio.Protocol):
    def __init__(self, on_data: Callable[[bytes], None], closed: asyncio.Future[None]) -> None:
        self._on_data = on_data
        self._closed = closed

    def data_received(self, data: bytes) -> None:
        self._on_data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._closed.done():
            self._closed.set_result(None)


async def run_in_group(
    command: str,
    cwd: str,
    time_limit: float | None,
    abort: AbortSignal,
    on_data: Callable[[bytes], None],
    env: Mapping[str, str] | None = None,
) -> Completion:
    """Run `command` with `bash -c` in `cwd` (in `env`, else this process's environment), feeding combined
    output to `on_data` as it arrives.

    Raises `OSError` when bash cannot be started.
    """
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    gate_read, gate_write = os.pipe()
    try:
        proc = await _spawn(command, cwd, write_fd, gate_read, env)
    except BaseException:
        os.close(read_fd)
        os.close(gate_write)
        raise
    finally:
        os.close(write_fd)  # the children hold the write end now; EOF comes when the last one closes it
        os.close(gate_read)
    try:
        _keeper.adopt(proc.pid, _bash())  # before the command runs: a kill of the app now still reaches it
    finally:
        with contextlib.suppress(OSError):
            os.write(gate_write, b"\n")
        os.close(gate_write)
    closed: asyncio.Future[None] = loop.create_future()
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    transport, _ = await loop.connect_read_pipe(lambda: _PipeReader(on_data, closed), pipe)
    try:
        return await _supervise(proc, closed, time_limit, abort)
    finally:
        transport.close()
        if not _group_alive(proc.pid):  # else something it started goes on (`server &`): kept till the end
            _keeper.release(proc.pid)


_GATED = 'IFS= read -r _ <&{fd}; exec {fd}<&-; exec "$BASH" -c "$1"'
"""Waits until the group was handed to the keeper, then becomes a plain `bash -c command` (same pid, so
same group; its `$0` and messages are bash's own, as without the gate)."""


async def _spawn(
    command: str, cwd: str, output_fd: int, gate_fd: int, env: Mapping[str, str] | None
) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        _bash(),
        "-c",
        _GATED.format(fd=gate_fd),
        "bash",
        command,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=output_fd,
        stderr=output_fd,
        start_new_session=True,
        pass_fds=(gate_fd,),
    )


@functools.cache
def _bash() -> str:
    return shutil.which("bash") or "/bin/bash"


async def _supervise(
    proc: asyncio.subprocess.Process, closed: asyncio.Future[None], time_limit: float | None, abort: AbortSignal
) -> Completion:
    """Wait for bash to exit, or stop its group on timeout or abort; then let the pipe drain briefly."""
    exited = asyncio.ensure_future(proc.wait())
    try:
        ended = await _wait_for_end(exited, time_limit, abort)
        if ended != "exited":
            await _stop_group(proc.pid, exited)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(closed), DRAIN_GRACE)
        return Completion(ended, await exited)
    finally:
        if proc.returncode is None:  # we were cancelled: leave nothing running
            _signal_group(proc.pid, signals.SIGKILL)
            exited.cancel()


async def _wait_for_end(
    exited: asyncio.Future[int], time_limit: float | None, abort: AbortSignal
) -> Literal["exited", "timeout", "aborted"]:
    aborted = asyncio.ensure_future(abort.wait())
    try:
        either: set[asyncio.Future[Any]] = {exited, aborted}
        await asyncio.wait(either, timeout=time_limit, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
    if exited.done():
        return "exited"
    return "aborted" if abort.aborted else "timeout"


async def _stop_group(pgid: int, exited: asyncio.Future[int]) -> None:
    """SIGTERM the group; SIGKILL it if anything in it is still running after the grace period."""
    _signal_group(pgid, signals.SIGTERM)
    deadline = time.monotonic() + KILL_GRACE
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(exited), KILL_GRACE)
    # Nothing signals "the group is empty": the kernel can only be asked, so this polls.
    while _group_alive(pgid) and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(_POLL)
    _signal_group(pgid, signals.SIGKILL)
    await exited


def _signal_group(pgid: int, sig: signals.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
