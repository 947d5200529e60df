"""`KernelOps` on the IPython shell this process runs (`%%prime` in a notebook).

Code runs with `shell.run_cell` on the shell's own thread, so the agent works in the notebook's own
namespace. Outputs are teed: they still appear in the notebook as usual, and `sink` gets them as
iopub-shaped messages too, so the rest of the kernel layer cannot tell the difference.

The agent loop runs on another thread (its own asyncio loop). With a `ShellChannel`, `execute` hands the
code to the shell's thread, which pumps the channel while it waits for the run (`open`, then `run_until`):
so `interrupt` works (a SIGINT to the shell's thread, as Jupyter's stop button sends), the tool time
limit holds, and the user's own interrupt aborts the run instead of wedging the kernel. Without a
channel, code runs in the calling thread (a plain shell driven from its own thread, as in tests).

`restart` refuses: the kernel is the user's. For the same reason no bootstrap cell runs in it: the
helpers are lent to each execution (`guest`), and the display hooks are wrapped only while it runs.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TextIO, TypeVar

from prime_jupyter.kernel.guest import lent_helpers
from prime_jupyter.kernel.helpers import with_preview
from prime_jupyter.kernel.ops import ExecuteReply, KernelError, KernelInfo, OutputMessage, OutputSink

__all__ = ["InProcessKernelOps", "InProcessLauncher", "ShellChannel"]

T = TypeVar("T")
log = logging.getLogger(__name__)
_NOT_PUMPING = "the notebook's kernel runs the agent's code only while a %%prime cell (or a Session call) waits for it"


@dataclass(slots=True)
class _Job(Generic[T]):
    work: Callable[[], T]
    future: concurrent.futures.Future[T] | None  # None: a post, nobody waits for it


class ShellChannel:
    """Work handed from any thread to the one thread that pumps the channel (the shell's).

    `post` is fire-and-forget (presentation: dropped when nobody pumps); `call` returns a future, failed
    at once with `KernelError` when nobody pumps, so the agent never waits for a shell that is idle.
    Interrupts are counted so the shell can tell the agent's own (`interrupt`: a time limit, an abort)
    from the user's (the stop button), which abort the run: the first calls `on_interrupt` and keeps
    pumping while the run winds down, a second one stops waiting.
    """

    def __init__(self) -> None:
        self._jobs: list[_Job[Any]] = []
        self._ready = threading.Condition()
        self._pumper: int | None = None
        self._in_call = False
        self._user_stopped_call = False
        self._agent_interrupts = 0
        self._user_interrupts = 0
        self._on_interrupt: Callable[[], object] = lambda: None
        self._wakeup: Callable[[], None] | None = None

    @property
    def on_pump_thread(self) -> bool:
        return self._pumper == threading.get_ident()

    def post(self, work: Callable[[], None]) -> None:
        with self._ready:
            if self._pumper is not None:
                self._jobs.append(_Job(work, None))
                self._ready.notify()
                wakeup = self._wakeup
            else:
                return
        if wakeup is not None:
            wakeup()

    def call(self, work: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._ready:
            if self._pumper is None:
                future.set_exception(KernelError(_NOT_PUMPING))
                return future
            self._jobs.append(_Job(work, future))
            self._ready.notify()
            wakeup = self._wakeup
        if wakeup is not None:
            wakeup()
        return future

    def interrupt(self) -> bool:
        """Interrupt the call running on the pumping thread (a KeyboardInterrupt there); False if none runs."""
        with self._ready:
            pumper = self._pumper
            if not self._in_call or pumper is None or pumper != threading.main_thread().ident:
                return False  # nothing runs, or signals cannot reach the pumping thread
            if self._user_stopped_call:
                return False  # the user's interrupt stopped this code already: a second would hit what follows
            self._agent_interrupts += 1
            signal.pthread_kill(pumper, signal.SIGINT)
            return True

    def note_keyboard_interrupt(self) -> None:
        """A call ended in KeyboardInterrupt (the shell caught it): the agent's own, or the user's."""
        self._interrupted()

    @property
    def user_interrupted(self) -> bool:
        """The user interrupted since the channel was opened."""
        return self._user_interrupts > 0

    @contextlib.contextmanager
    def open(self, on_interrupt: Callable[[], object], wake: Callable[[], None] | None = None) -> Iterator[None]:
        """Make this thread the pumping one; `wake` is called (from any thread) when work arrives.

        On leaving, what is still queued is dropped and its callers get `KernelError`.
        """
        with self._ready:
            if self._pumper is not None:
                raise RuntimeError("this channel is already pumped (a %%prime run inside a %%prime run?)")
            self._pumper, self._user_interrupts, self._agent_interrupts = threading.get_ident(), 0, 0
            self._on_interrupt, self._wakeup = on_interrupt, wake
        try:
            yield
        finally:
            with self._ready:
                self._pumper, self._wakeup, left, self._jobs = None, None, self._jobs, []
            for job in left:
                if job.future is not None and not job.future.done():
                    job.future.set_exception(KernelError(_NOT_PUMPING))

    @property
    def idle(self) -> bool:
        """Nothing is queued."""
        with self._ready:
            return not self._jobs

    def run_until(self, until: concurrent.futures.Future[Any], stop: Callable[[], bool] | None = None) -> None:
        """While open: run work until `until` is done and the queue is empty, or `stop()` after a job.

        Raises KeyboardInterrupt on the user's second interrupt."""
        until.add_done_callback(lambda _: self._wake())
        while self._user_interrupts < 2:
            job: _Job[Any] | None = None
            try:
                job = self._next(until)
                if job is None:
                    return
                self._run(job)
                if stop is not None and stop():
                    return
            except KeyboardInterrupt:
                if job is not None and job.future is not None and not job.future.done():
                    job.future.set_exception(KernelError("interrupted"))  # popped, never started
                self._interrupted()
        raise KeyboardInterrupt

    def drain(self) -> None:
        """While open: run what is queued now, without waiting (the async pump's step)."""
        while self._user_interrupts < 2:
            with self._ready:
                if not self._jobs:
                    return
                job = self._jobs.pop(0)
            try:
                self._run(job)
            except KeyboardInterrupt:
                self._interrupted()

    def _next(self, until: concurrent.futures.Future[Any]) -> _Job[Any] | None:
        with self._ready:
            while not self._jobs:
                if until.done():
                    return None
                self._ready.wait(1.0)
            return self._jobs.pop(0)

    def _run(self, job: _Job[Any]) -> None:
        future = job.future
        if future is None:
            try:
                job.work()
            except Exception:
                log.exception("work handed to the shell's thread failed")
            return
        if not future.set_running_or_notify_cancel():
            return
        with self._ready:
            self._in_call, self._user_stopped_call = True, False
        try:
            future.set_result(job.work())
        except BaseException as error:
            if not future.done():
                failure = error if isinstance(error, Exception) else KernelError("interrupted")
                future.set_exception(failure)
            if not isinstance(error, Exception):
                raise
        finally:
            self._in_call = False
            if not future.done():
                future.set_exception(KernelError("interrupted"))

    def _interrupted(self) -> None:
        """Account for one KeyboardInterrupt: the agent's own are expected, the user's first aborts."""
        with self._ready:
            if self._agent_interrupts:
                self._agent_interrupts -= 1
                return
            self._user_interrupts += 1
            self._user_stopped_call = self._in_call
            first = self._user_interrupts == 1
        if first:
            self._on_interrupt()

    def _wake(self) -> None:
        with self._ready:
            self._ready.notify_all()
            wakeup = self._wakeup
        if wakeup is not None:
            wakeup()


class InProcessKernelOps:
    """The running IPython shell as a kernel; with `channel`, its code runs on the thread pumping it."""

    def __init__(self, shell: Any, channel: ShellChannel | None = None, *, store_history: bool = True) -> None:
        """`store_history=False` keeps the agent's code out of the user's `In`/`Out` and execution count."""
        self._shell = shell
        self._channel = channel
        self._store_history = store_history
        self._idle = threading.Event()
        self._idle.set()

    @property
    def kernel_id(self) -> str:
        return "in-process"

    async def execute(self, code: str, sink: OutputSink, *, silent: bool = False) -> ExecuteReply:
        if self._channel is None:
            return self._run(code, sink, silent)
        loop = asyncio.get_running_loop()

        def deliver(message: OutputMessage) -> None:  # the sink belongs to the agent's loop
            loop.call_soon_threadsafe(sink, message)

        return await asyncio.wrap_future(self._channel.call(lambda: self._run(code, deliver, silent)))

    def _run(self, code: str, sink: OutputSink, silent: bool) -> ExecuteReply:
        self._idle.clear()
        try:
            with _teed(self._shell, sink), lent_helpers(self._shell):
                result = self._shell.run_cell(code, store_history=self._store_history and not silent, silent=silent)
        finally:
            self._idle.set()
        interrupted = (result.error_in_exec, result.error_before_exec)
        if self._channel is not None and any(isinstance(e, KeyboardInterrupt) for e in interrupted):
            self._channel.note_keyboard_interrupt()
        count = result.execution_count if isinstance(result.execution_count, int) else None
        return ExecuteReply(status="ok" if result.success else "error", execution_count=count)

    def user_namespace(self) -> tuple[dict[str, object], dict[str, object]]:
        """The user's namespace and the names IPython hides in it (`kernel.namespace` reads them here,
        without running code in the user's cell)."""
        return self._shell.user_ns, getattr(self._shell, "user_ns_hidden", {})

    async def wait_idle(self, seconds: float) -> bool:
        if self._idle.is_set():
            return True
        return await asyncio.to_thread(self._idle.wait, seconds)

    async def interrupt(self) -> None:
        if self._channel is not None:
            self._channel.interrupt()

    async def restart(self) -> None:
        raise KernelError("the notebook's own kernel is not restarted by the agent; restart it from the notebook")

    async def shutdown(self) -> None:
        return None

    async def is_alive(self) -> bool:
        return True

    async def kernel_info(self) -> KernelInfo:
        version = ".".join(str(part) for part in sys.version_info[:3])
        return KernelInfo("in-process", "in-process", "python", version, "ipython", "5.3")


class InProcessLauncher:
    """A `KernelLauncher` that hands out the running shell (kernel name and cwd are the notebook's): the
    user's own kernel, where no bootstrap cell runs (`IpythonKernelProvisioner`) and the helpers are
    `__prime__` (`tools.ipython`)."""

    def __init__(self, shell: Any, channel: ShellChannel | None = None, *, store_history: bool = True) -> None:
        self._ops = InProcessKernelOps(shell, channel, store_history=store_history)

    async def launch(self, *, kernel_name: str, cwd: str, env: Mapping[str, str] | None = None) -> InProcessKernelOps:
        return self._ops


class _Tee:
    """While code runs: report its outputs to `sink`, and let them through to the notebook unchanged.

    The shell's own writers (a plain shell prints results and tracebacks to stdout) run muted, so each
    output is reported once, in its own kind.
    """

    def __init__(self, shell: Any, sink: OutputSink) -> None:
        self.shell, self.sink, self.muted = shell, sink, False

    def report(self, kind: str, content: dict[str, Any]) -> None:
        if not self.muted:
            self.sink(OutputMessage(kind, content))

    def quietly(self, original: Any, *args: Any, **kwargs: Any) -> Any:
        self.muted = True
        try:
            return original(*args, **kwargs)
        finally:
            self.muted = False

    def publish(self, original: Any) -> Any:
        def publish(data: Any, metadata: Any = None, transient: Any = None, update: bool = False, **kw: Any) -> Any:
            shown = with_preview(data, metadata) or {}  # for the agent: the notebook's output stays as it was
            content = {"data": data, "metadata": shown, "transient": transient or {}}
            self.report("update_display_data" if update else "display_data", content)
            return self.quietly(original, data, metadata, transient=transient, update=update, **kw)

        return publish

    def clear_output(self, original: Any) -> Any:
        def clear_output(wait: bool = False) -> Any:
            self.report("clear_output", {"wait": wait})
            return self.quietly(original, wait)

        return clear_output

    def write_format_data(self, original: Any) -> Any:
        def write_format_data(format_dict: Any, md_dict: Any = None) -> Any:
            count = self.shell.displayhook.prompt_count
            shown = with_preview(format_dict, md_dict) or {}
            self.report("execute_result", {"data": format_dict, "metadata": shown, "execution_count": count})
            return self.quietly(original, format_dict, md_dict)

        return write_format_data

    def write_output_prompt(self, original: Any) -> Any:
        return lambda *args, **kwargs: self.quietly(original, *args, **kwargs)

    finish_displayhook = write_output_prompt

    def showtraceback(self, original: Any) -> Any:
        def showtraceback(etype: Any, evalue: Any, stb: Any) -> Any:
            self.report(
                "error", {"ename": getattr(etype, "__name__", str(etype)), "evalue": str(evalue), "traceback": stb}
            )
            return self.quietly(original, etype, evalue, stb)

        return showtraceback


class _TeeStream:
    """A text stream writing through to the original and reporting each chunk as a `stream` message."""

    def __init__(self, original: TextIO, name: str, tee: _Tee) -> None:
        self._original, self._name, self._tee = original, name, tee

    def write(self, text: str) -> int:
        if text:
            self._tee.report("stream", {"name": self._name, "text": text})
        return self._original.write(text)

    def flush(self) -> None:
        self._original.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)


_HOOKS = (
    ("display_pub", "publish"),
    ("display_pub", "clear_output"),
    ("displayhook", "write_format_data"),
    ("displayhook", "write_output_prompt"),
    ("displayhook", "finish_displayhook"),
    (None, "_showtraceback"),
)


@contextlib.contextmanager
def _teed(shell: Any, sink: OutputSink) -> Iterator[None]:
    tee = _Tee(shell, sink)
    owners = [shell if owner is None else getattr(shell, owner) for owner, _ in _HOOKS]
    saved = [getattr(owner, name) for owner, (_, name) in zip(owners, _HOOKS, strict=True)]
    for owner, (_, name), original in zip(owners, _HOOKS, saved, strict=True):
        setattr(owner, name, getattr(tee, name.lstrip("_"))(original))
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _TeeStream(streams[0], "stdout", tee), _TeeStream(streams[1], "stderr", tee)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = streams
        for owner, (_, name), original in zip(owners, _HOOKS, saved, strict=True):
            setattr(owner, name, original)
