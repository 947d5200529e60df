"""Run one cell for the agent, with the fault policy the original lacked.

- a time limit: interrupt, give the code `interrupt_grace_s` to stop, else restart the kernel;
- abort: interrupt and settle within `abort_grace_s` even if the code ignores it (the kernel is then
  settled in the background: waited on with repeated interrupts, restarted if it stays busy);
- a kernel that dies while running is replaced, and the next call is told its variables are gone;
- a kernel that died between calls is replaced before the code runs, with the same notice.

Every outcome is a `CellRun`; only `KernelError` (no kernel could be started) is raised.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.kernel.ops import ExecuteReply, KernelDiedError, KernelOps, OutputMessage
from prime_jupyter.kernel.outputs import Output, OutputAccumulator
from prime_jupyter.kernel.provisioner import LOST_STATE, IpythonKernelProvisioner, ProgressCallback

__all__ = ["CellRun", "RunStatus", "run_cell"]

RunStatus: TypeAlias = Literal["ok", "error", "timeout", "aborted", "died"]


@dataclass
class CellRun:
    """The outcome of one cell: outputs in nbformat shape, and what the model must be told about it."""

    status: RunStatus
    outputs: list[Output] = field(default_factory=list)
    execution_count: int | None = None
    notices: list[str] = field(default_factory=list)
    duration_ms: int = 0


async def run_cell(
    provisioner: IpythonKernelProvisioner,
    code: str,
    *,
    timeout_s: float = 600.0,
    signal: AbortSignal | None = None,
    on_output: Callable[[OutputAccumulator], None] | None = None,
    on_progress: ProgressCallback | None = None,
    interrupt_grace_s: float = 5.0,
    abort_grace_s: float = 0.8,
) -> CellRun:
    """Run `code` in the provisioner's kernel; `on_output` sees the accumulated outputs as they grow."""
    started = time.monotonic()
    if not await _acquire(provisioner.lock, signal):
        return CellRun("aborted", notices=["Aborted while waiting for the kernel; the code did not run."])
    try:
        run = await _run_locked(
            provisioner, code, timeout_s, signal, on_output, on_progress, interrupt_grace_s, abort_grace_s
        )
    finally:
        provisioner.lock.release()
    run.duration_ms = int((time.monotonic() - started) * 1000)
    return run


async def _run_locked(
    provisioner: IpythonKernelProvisioner,
    code: str,
    timeout_s: float,
    signal: AbortSignal | None,
    on_output: Callable[[OutputAccumulator], None] | None,
    on_progress: ProgressCallback | None,
    interrupt_grace_s: float,
    abort_grace_s: float,
) -> CellRun:
    ops = await _ready_kernel(provisioner, signal, on_progress)
    if ops is None:
        return CellRun("aborted", notices=["Aborted before the kernel was ready; the code did not run."])
    notices = [notice] if (notice := provisioner.take_notice()) else []
    outputs = OutputAccumulator()

    def sink(message: OutputMessage) -> None:
        outputs.add(message)
        if on_output is not None:
            on_output(outputs)

    task = asyncio.ensure_future(ops.execute(code, sink))
    try:
        run = await _supervise(provisioner, ops, task, timeout_s, signal, interrupt_grace_s, abort_grace_s)
    except asyncio.CancelledError:  # our caller gave up: do not leave the kernel running unattended
        task.cancel()
        await ops.interrupt()
        provisioner.settle(
            ops, f"An earlier execution was cancelled and did not stop, so the kernel was restarted: {LOST_STATE}."
        )
        raise
    run.outputs = outputs.outputs()
    run.execution_count = run.execution_count or outputs.execution_count
    run.notices[:0] = notices
    return run


async def _ready_kernel(
    provisioner: IpythonKernelProvisioner, signal: AbortSignal | None, on_progress: ProgressCallback | None
) -> KernelOps | None:
    """The kernel, alive; a kernel found dead (OOM while idle, shut down from Lab) is replaced first."""
    if provisioner.has_running_kernel:  # the usual case: no task, no waiting
        ops = await provisioner.ensure(on_progress)
        if await ops.is_alive():
            return ops
    for _ in range(2):
        start = asyncio.ensure_future(provisioner.ensure(on_progress))
        if not await _first(start, None, signal):
            start.cancel()
            return None
        ops = start.result()
        if await ops.is_alive():
            return ops
        provisioner.recover(f"The kernel had stopped since the last call, so this runs on a fresh one: {LOST_STATE}.")
    return await provisioner.ensure(on_progress)


async def _supervise(
    provisioner: IpythonKernelProvisioner,
    ops: KernelOps,
    task: asyncio.Future[ExecuteReply],
    timeout_s: float,
    signal: AbortSignal | None,
    interrupt_grace_s: float,
    abort_grace_s: float,
) -> CellRun:
    finished = await _first(task, timeout_s, signal)
    if finished:
        return _finished(provisioner, task)
    aborted = signal is not None and signal.aborted
    await ops.interrupt()
    grace = abort_grace_s if aborted else interrupt_grace_s
    stopped = await _first(task, grace, None if aborted else signal)
    if stopped:
        run = _finished(provisioner, task)
        if run.status != "died":
            run.status = "aborted" if aborted else "timeout"
            run.notices.append(_stopped_notice(aborted, timeout_s))
        return run
    task.cancel()
    if aborted or (signal is not None and signal.aborted):
        provisioner.settle(
            ops, f"The previous code kept running after an interrupt, so the kernel was restarted: {LOST_STATE}."
        )
        return CellRun("aborted", notices=["Aborted. The code had not stopped after an interrupt yet."])
    provisioner.recover(None)
    return CellRun(
        "timeout",
        notices=[
            f"Execution exceeded the time limit of {timeout_s:g} s and did not stop within {grace:g} s of an "
            f"interrupt, so the kernel was restarted: {LOST_STATE}."
        ],
    )


def _finished(provisioner: IpythonKernelProvisioner, task: asyncio.Future[ExecuteReply]) -> CellRun:
    try:
        reply = task.result()
    except KernelDiedError as error:
        provisioner.recover(f"This runs on a fresh kernel: the previous one died ({error}), so {LOST_STATE}.")
        return CellRun(
            "died",
            notices=[
                f"The kernel died while running this code: {error}. Its state is lost; the next call "
                "starts on a fresh kernel."
            ],
        )
    return CellRun("ok" if reply.status == "ok" else "error", execution_count=reply.execution_count)


def _stopped_notice(aborted: bool, timeout_s: float) -> str:
    if aborted:
        return "Aborted by the user: the code was interrupted; the kernel's state is kept."
    return f"Execution exceeded the time limit of {timeout_s:g} s and was interrupted; the kernel's state is kept."


async def _acquire(lock: asyncio.Lock, signal: AbortSignal | None) -> bool:
    """Take `lock` unless `signal` fires first; True when it is held."""
    if not lock.locked():  # the usual case: no task, no waiting
        return await lock.acquire()
    acquiring = asyncio.ensure_future(lock.acquire())
    if await _first(acquiring, None, signal):
        return True
    acquiring.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await acquiring
    if acquiring.done() and not acquiring.cancelled():
        lock.release()  # granted just as we gave up
    return False


async def _first(task: asyncio.Future[Any], seconds: float | None, signal: AbortSignal | None) -> bool:
    """Wait for `task`, at most `seconds` and until `signal` fires; True when the task is done."""
    if task.done():
        return True
    if signal is None:
        await asyncio.wait({task}, timeout=seconds)
        return task.done()
    aborted: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def fire() -> None:
        if not aborted.done():
            aborted.set_result(None)

    unsubscribe = signal.add_callback(fire)
    try:
        await asyncio.wait({task, aborted}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        unsubscribe()
        aborted.cancel()
    return task.done()
