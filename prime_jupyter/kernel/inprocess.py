"""`KernelOps` on the IPython shell this process runs (`%%prime` in a notebook): a minimal version.

Code runs with `shell.run_cell` in the calling thread, so the agent works in the notebook's own
namespace. Outputs are teed: they still appear in the notebook as usual, and `sink` gets them as
iopub-shaped messages too, so the rest of the kernel layer cannot tell the difference.

Limits of this first version, for the `%%prime` issue to lift: the calling thread is blocked while the
code runs (run the agent loop in a worker thread and hand the code to the shell's thread to make abort
and the time limit effective); `interrupt` does nothing; `restart` refuses, since the kernel is the
user's.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Mapping
from typing import Any, TextIO

from prime_jupyter.kernel.ops import ExecuteReply, KernelError, KernelInfo, OutputMessage, OutputSink

__all__ = ["InProcessKernelOps", "InProcessLauncher"]


class InProcessKernelOps:
    """The running IPython shell as a kernel."""

    def __init__(self, shell: Any) -> None:
        self._shell = shell

    @property
    def kernel_id(self) -> str:
        return "in-process"

    async def execute(self, code: str, sink: OutputSink, *, silent: bool = False) -> ExecuteReply:
        with _teed(self._shell, sink):
            result = self._shell.run_cell(code, store_history=not silent, silent=silent)
        count = result.execution_count if isinstance(result.execution_count, int) else None
        return ExecuteReply(status="ok" if result.success else "error", execution_count=count)

    async def wait_idle(self, seconds: float) -> bool:
        return True  # execute returns only when the code is done

    async def interrupt(self) -> None:
        return None

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
    """A `KernelLauncher` that hands out the running shell (kernel name and cwd are the notebook's)."""

    def __init__(self, shell: Any) -> None:
        self._ops = InProcessKernelOps(shell)

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
            content = {"data": data, "metadata": metadata or {}, "transient": transient or {}}
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
            self.report("execute_result", {"data": format_dict, "metadata": md_dict or {}, "execution_count": count})
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
