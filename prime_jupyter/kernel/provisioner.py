"""One session's kernel: started once and shared, replaced when it fails, shut down with the session.

`ensure()` memoises the start in a task: concurrent callers share it, a caller that gives up does not
cancel it for the others, and a failed start is forgotten so the next call retries. When a kernel dies
or must be restarted, the memo is replaced by a recovery task (restart in place, or a new kernel when
that fails), so a session is never left holding a dead kernel (the original's bug #1668). A notice for
the model ("your variables are gone") is kept until the next execution takes it.

Nothing starts a kernel before it is needed: the first execution does, or `prewarm` a little earlier,
as the model begins a call to the tool that runs code. A session that never runs code holds no kernel,
and closing it has none to wait for.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Literal

from prime_jupyter.errors import BusyError
from prime_jupyter.kernel.bootstrap import bootstrap_code
from prime_jupyter.kernel.inprocess import InProcessLauncher
from prime_jupyter.kernel.ops import KernelDiedError, KernelError, KernelLauncher, KernelOps
from prime_jupyter.kernel.outputs import OutputAccumulator

__all__ = ["LOST_STATE", "IpythonKernelProvisioner", "ProgressCallback"]

log = logging.getLogger(__name__)
ProgressCallback = Callable[[str], None]
LOST_STATE = "all variables, imports and other state from earlier calls are gone"
_CLOSED = "this session was closed, so its kernel is shut down"


class _Progress:
    """Fan-out of start-up progress to whoever is waiting right now; late joiners get the current stage."""

    def __init__(self) -> None:
        self._listeners: list[ProgressCallback] = []
        self.current: str | None = None

    def subscribe(self, callback: ProgressCallback | None) -> Callable[[], None]:
        if callback is None:
            return lambda: None
        self._listeners.append(callback)
        if self.current is not None:
            callback(self.current)
        return lambda: self._listeners.remove(callback)

    def emit(self, message: str | None) -> None:
        """Announce a stage (`None`: no stage in progress, nothing to announce)."""
        self.current = message
        if message is not None:
            for listener in list(self._listeners):
                listener(message)


class IpythonKernelProvisioner:
    """The kernel of one session, in `cwd`, from `launcher` (server-backed, local or in-process)."""

    def __init__(
        self,
        launcher: KernelLauncher,
        cwd: str | os.PathLike[str],
        *,
        kernel_name: str = "python3",
        env: Mapping[str, str] | None = None,
        bootstrap: str | None = None,
        busy_grace_s: float = 5.0,
    ) -> None:
        """`busy_grace_s`: how long code still running after an abort gets (interrupted again every
        0.5 s) before its kernel is restarted."""
        self.launcher = launcher
        self.cwd = os.fspath(cwd)
        self.kernel_name = kernel_name
        self.env = dict(env) if env else None
        if bootstrap is None:  # the user's own kernel gets none: its helpers are lent to each run (`guest`)
            bootstrap = "" if isinstance(launcher, InProcessLauncher) else bootstrap_code()
        self.bootstrap = bootstrap
        self.busy_grace_s = busy_grace_s
        self.lock = asyncio.Lock()  # one execution at a time: the kernel is single-threaded
        self.bootstrap_error: str | None = None
        self._task: asyncio.Task[KernelOps] | None = None
        self._ops: KernelOps | None = None
        self._notice: str | None = None
        self._progress = _Progress()
        self._disposed = False
        self.on_start_end: Callable[[str | None], None] | None = None
        """Told how each start of a kernel ends (None: it runs; else why not), not when the session
        closed meanwhile: what the server's readiness reports (`server.host.kernels`)."""

    @property
    def has_running_kernel(self) -> bool:
        task = self._task
        return task is not None and task.done() and not task.cancelled() and task.exception() is None

    @property
    def state(self) -> Literal["stopped", "starting", "idle", "busy", "dead"]:
        """ "stopped" before the first start (or after `dispose`), "starting" until the kernel runs (and
        while it is replaced), "busy" while code runs, "dead" when the last start failed (the next call
        retries), else "idle"."""
        task = self._task
        if task is None or self._disposed:
            return "stopped"
        if not task.done():
            return "starting"
        if task.cancelled() or task.exception() is not None:
            return "dead"
        return "busy" if self.lock.locked() else "idle"

    @property
    def kernel_id(self) -> str | None:
        return self._ops.kernel_id if self.has_running_kernel and self._ops else None

    async def ensure(self, on_progress: ProgressCallback | None = None) -> KernelOps:
        """The running kernel, starting (or finishing a restart of) it first; raises `KernelError`."""
        if self._disposed:
            raise KernelError(_CLOSED)
        task = self._task
        if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
            task = self._task = _spawn(self._start())
        unsubscribe = self._progress.subscribe(on_progress)
        try:
            return await asyncio.shield(task)
        except KernelError:
            if self._task is task:
                self._task = None  # forget the failure: the next call retries
            raise
        finally:
            unsubscribe()

    def prewarm(self) -> None:
        """Start the kernel in the background (when the model begins a call that will need it); failures
        wait for `ensure`.

        Without a running event loop this does nothing: the first `ensure()` starts the kernel.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._task is None and not self._disposed:
            self._task = _spawn(self._start())

    def take_notice(self) -> str | None:
        """What the model must be told before its next result (a restart it did not see), once."""
        notice, self._notice = self._notice, None
        return notice

    def recover(self, notice: str | None) -> None:
        """Replace a dead or wedged kernel in the background; `notice` goes to the next execution."""
        self._notice = notice
        self._replace(self._recover)

    async def release(self, notice: str) -> bool:
        """Shut an idle kernel down while the session stays open (idle culling frees what it holds); the
        next `ensure` starts a fresh one and its first execution tells the model `notice`. False, and
        nothing done, when there is no started kernel or code is running on it. Contract: must not raise."""
        if self._disposed or not self.has_running_kernel or self.lock.locked():
            return False
        async with self.lock:  # no execution can start on the kernel going away
            ops, self._ops, self._task = self._ops, None, None
            self._notice = notice
            if ops is not None:
                await ops.shutdown()
        return True

    async def interrupt(self) -> bool:
        """Interrupt the code running on the kernel (the user asked: `/kernel interrupt`); its execution
        ends with a KeyboardInterrupt and the kernel's state is kept. False when no kernel is running."""
        ops = self._ops if self.has_running_kernel else None
        if ops is None:
            return False
        await ops.interrupt()
        return True

    async def restart(self, notice: str) -> None:
        """Restart the kernel now (the user asked: `/kernel restart`) and return once it is ready again;
        the next execution tells the model `notice`. Raises `BusyError` while code runs on it (interrupt
        it or abort the run first) and `KernelError` when no kernel could be had."""
        if self._disposed:
            raise KernelError(_CLOSED)
        if self.lock.locked():
            raise BusyError("code is running on the kernel: interrupt it (or abort the run) before restarting it")
        async with self.lock:  # no execution starts on the kernel going away
            if self._task is not None:
                self._notice = notice
                self._replace(self._recover)
            await self.ensure()

    def settle(self, ops: KernelOps, notice: str) -> None:
        """After an abort: wait for the abandoned execution, interrupting again, then restart if needed."""

        async def settle() -> KernelOps:
            for _ in range(max(1, round(self.busy_grace_s / 0.5))):
                try:
                    if await ops.wait_idle(0.5):
                        return ops
                except KernelDiedError as error:
                    self._notice = f"This runs on a fresh kernel: the previous one died ({error}), so {LOST_STATE}."
                    return await self._recover(ops)
                await ops.interrupt()
            self._notice = notice
            return await self._recover(ops)

        self._replace(lambda _old: settle())

    async def dispose(self) -> None:
        """Shut the kernel down for good (also when it is still starting). Contract: must not raise."""
        self._disposed = True
        task, self._task = self._task, None
        if task is not None and not task.done():
            await asyncio.wait({task}, timeout=120)  # a start sees `_disposed` and stops its own kernel
            task.cancel()
        if self._ops is not None:
            await self._ops.shutdown()
            self._ops = None

    def _replace(self, work: Callable[[KernelOps | None], Awaitable[KernelOps]]) -> None:
        previous = self._task

        async def after_previous() -> KernelOps:
            old: KernelOps | None = None
            if previous is not None:
                await asyncio.wait({previous})  # its failure is of no interest, only its kernel
                if not previous.cancelled() and previous.exception() is None:
                    old = previous.result()
            return await work(old or self._ops)

        self._task = _spawn(after_previous())

    async def _start(self) -> KernelOps:
        if self._disposed:
            raise KernelError(_CLOSED)
        try:
            ops = await self._launch()
        except KernelError as error:
            self._tell_start_end(str(error))
            raise
        self._tell_start_end(None)
        return ops

    def _tell_start_end(self, problem: str | None) -> None:
        if self.on_start_end is not None and not self._disposed:
            try:
                self.on_start_end(problem)
            except Exception:
                log.exception("a kernel start listener failed")

    async def _launch(self) -> KernelOps:
        self._progress.emit(f"Starting IPython kernel ({self.kernel_name})...")
        try:
            ops = await self.launcher.launch(kernel_name=self.kernel_name, cwd=self.cwd, env=self.env)
        except KernelError:
            raise
        except Exception as error:
            raise KernelError(f"could not start the '{self.kernel_name}' kernel: {error}") from error
        finally:
            self._progress.emit(None)
        if self._disposed:
            await ops.shutdown()
            raise KernelError(_CLOSED)
        await self._prepare(ops)
        self._ops = ops
        return ops

    async def _recover(self, old: KernelOps | None) -> KernelOps:
        if self._disposed:
            raise KernelError(_CLOSED)
        if old is None:
            return await self._start()
        self._progress.emit("Restarting IPython kernel...")
        try:
            await old.restart()
        except Exception as error:
            log.info("restarting kernel %s failed (%s); starting a new one", old.kernel_id, error)
            await old.shutdown()
            self._ops = None
            return await self._start()
        finally:
            self._progress.emit(None)
        await self._prepare(old)
        return old

    async def _prepare(self, ops: KernelOps) -> None:
        """Load the helpers; a kernel that fails even that is shut down, never kept half-ready."""
        try:
            await self._run_bootstrap(ops)
        except BaseException:
            await ops.shutdown()
            if self._ops is ops:
                self._ops = None
            raise

    async def _run_bootstrap(self, ops: KernelOps) -> None:
        if not self.bootstrap:
            return
        self._progress.emit("Preparing IPython runtime...")
        outputs = OutputAccumulator()
        try:
            reply = await ops.execute(self.bootstrap, outputs.add, silent=True)
        finally:
            self._progress.emit(None)
        self.bootstrap_error = None if reply.status == "ok" else _error_text(outputs)
        if self.bootstrap_error:
            log.warning("kernel helpers unavailable: %s", self.bootstrap_error)


def _error_text(outputs: OutputAccumulator) -> str:
    for output in outputs.outputs():
        if output.get("output_type") == "error":
            return f"{output.get('ename')}: {output.get('evalue')}"
    return "the bootstrap cell failed"


def _spawn(coro: Awaitable[KernelOps]) -> asyncio.Task[KernelOps]:
    task = asyncio.ensure_future(coro)
    task.add_done_callback(lambda t: t.cancelled() or t.exception())  # never "exception not retrieved"
    return task
