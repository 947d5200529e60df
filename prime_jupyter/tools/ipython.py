"""The `ipython` tool: run code in the session's persistent IPython kernel and see what it printed.

The model gets a budgeted text block (stdout, stderr, result, traceback; see `kernel/budget.py`) and
image blocks; `details` keep every output in nbformat shape for the panel, which renders them like a
notebook cell. While the code runs, stdout/stderr stream out as `on_update` calls carrying the
accumulated result, at most about 20 per second.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import cast

from pydantic import BaseModel, Field, JsonValue

from prime_jupyter.agent.tool import AgentTool, AgentToolResult, ToolUpdate
from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.types import TextContent
from prime_jupyter.errors import ToolError
from prime_jupyter.kernel.budget import details_outputs, model_content
from prime_jupyter.kernel.execution import CellRun, run_cell
from prime_jupyter.kernel.helpers import HELPERS_NAME
from prime_jupyter.kernel.inprocess import InProcessLauncher
from prime_jupyter.kernel.launchers import shared_local_launcher
from prime_jupyter.kernel.ops import KernelError, KernelLauncher
from prime_jupyter.kernel.outputs import OutputAccumulator
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner

__all__ = [
    "IPYTHON_TOOL_PROMPT",
    "NOTEBOOK_KERNEL_PROMPT",
    "NOTEBOOK_TOOL_PROMPT",
    "IpythonParams",
    "make_ipython_tool",
    "make_kernel_tool",
]

_PROMPT = """\
ipython - your hands: {kernel}
- Variables, imports, `%cd` and `os.environ` persist between calls; {restart}.
- Shell: a cell starting with `%%bash` runs in a fresh bash subshell (a non-zero exit fails the cell); \
`!cmd` for one-liners. Use the project's own environment for its imports, tests and CLIs.
- Edit files with `{helpers}edit(path, old_str, new_str)`: old_str must occur exactly once (an empty old_str \
creates a new file); the diff is shown. Read files with Python or `%%bash`.
- `{helpers}attach_image(path_or_figure)` shows you a PNG/JPEG file, a matplotlib figure or a PIL image.
- Output is capped (head and tail kept): print summaries, not whole datasets. A cell that runs past the \
time limit is interrupted; run long jobs in the background and poll them."""

IPYTHON_TOOL_PROMPT = _PROMPT.format(
    kernel="a persistent IPython kernel running in the session's working directory.",
    restart="a restart (you are told) clears them",
    helpers="",
)
NOTEBOOK_TOOL_PROMPT = _PROMPT.format(
    kernel="the user's own notebook kernel: its variables are theirs, and what you define stays for them.",
    restart="the user's kernel is never restarted by you",
    helpers=f"{HELPERS_NAME}.",
)
"""In the user's notebook kernel the helpers are under one name (`kernel.guest`), IPython's `%%bash` is theirs."""

NOTEBOOK_KERNEL_PROMPT = """\
ipython - your hands: this session is tied to the notebook {path}, and ipython runs in that notebook's \
own kernel, the one the user's cells run in: the notebook's variables (a `df` the user loaded) are \
there, and what you define there the user's cells see. Do not restart or shut it down; do not \
overwrite the user's variables unless asked; print summaries, not whole datasets (output is capped).
- Shell: `!cmd` for one-liners, a `%%bash` cell for a script. Read and change files with the read and \
edit tools or Python; change the notebook itself with notebook_edit and run its cells with notebook_run."""

_DESCRIPTION = """\
Run Python code in a persistent IPython kernel (state persists between calls) and get its stdout, \
stderr, result, traceback and images. Start the code with `%%bash` to run a shell script instead. \
Helpers: {helpers}edit(path, old_str, new_str) replaces a unique string in a file and shows the diff; \
{helpers}attach_image(path_or_figure) shows you an image."""

_UPDATE_INTERVAL_S = 0.05


class IpythonParams(BaseModel):
    code: str = Field(description="Python code (or a `%%bash` cell) to run in the kernel.")


def make_ipython_tool(
    provisioner: IpythonKernelProvisioner, *, accepts_images: bool, timeout_s: float = 600.0
) -> AgentTool[IpythonParams]:
    """The `ipython` tool on `provisioner`'s kernel; `timeout_s` is the time limit of one call."""
    helpers = f"{HELPERS_NAME}." if _users_kernel(provisioner.launcher) else ""

    async def execute(
        tool_call_id: str, params: IpythonParams, signal: AbortSignal, on_update: ToolUpdate
    ) -> AgentToolResult:
        updates = _Throttle(on_update)

        def on_output(outputs: OutputAccumulator) -> None:
            updates.push(lambda: _partial(outputs, accepts_images))

        def on_progress(message: str) -> None:
            on_update(AgentToolResult([TextContent(text=message)], {"status": "starting", "outputs": []}))

        try:
            run = await run_cell(
                provisioner, params.code, timeout_s=timeout_s, signal=signal,
                on_output=on_output, on_progress=on_progress,
            )  # fmt: skip
        except KernelError as error:
            raise ToolError(f"The IPython kernel is not available: {error}") from error
        finally:
            updates.close()
        return _final(run, accepts_images, provisioner.kernel_id)

    return AgentTool(
        name="ipython",
        label="ipython",
        description=_DESCRIPTION.format(helpers=helpers),
        parameters=IpythonParams,
        execute=execute,
        execution_mode="sequential",
    )


def make_kernel_tool(
    *,
    cwd: str | os.PathLike[str],
    accepts_images: bool,
    kernel_name: str = "python3",
    timeout_s: float = 600.0,
    launcher: KernelLauncher | None = None,
) -> tuple[AgentTool[IpythonParams], str, IpythonKernelProvisioner]:
    """The `ipython` tool of one session, its system-prompt guidance and its provisioner (to prewarm and
    dispose). Kernels come from `launcher` (the server's, the notebook's own shell) when given, else from
    the process's local launcher."""
    provisioner = IpythonKernelProvisioner(launcher or shared_local_launcher(), cwd, kernel_name=kernel_name)
    tool = make_ipython_tool(provisioner, accepts_images=accepts_images, timeout_s=timeout_s)
    return tool, NOTEBOOK_TOOL_PROMPT if _users_kernel(launcher) else IPYTHON_TOOL_PROMPT, provisioner


def _users_kernel(launcher: KernelLauncher | None) -> bool:
    """Whether the kernel is the user's own notebook kernel (helpers under `__prime__`, `kernel.guest`)."""
    return isinstance(launcher, InProcessLauncher)


def _final(run: CellRun, accepts_images: bool, kernel_id: str | None) -> AgentToolResult:
    content = model_content(run.outputs, notices=run.notices, accepts_images=accepts_images)
    details: dict[str, JsonValue] = {
        "outputs": cast(list[JsonValue], details_outputs(run.outputs)),
        "executionCount": run.execution_count,
        "status": run.status,
        "isError": run.status != "ok",
        "durationMs": run.duration_ms,
        "notices": cast(list[JsonValue], run.notices),
        "kernelId": kernel_id,
    }
    return AgentToolResult(content=content, details=details, is_error=run.status != "ok")


def _partial(outputs: OutputAccumulator, accepts_images: bool) -> AgentToolResult:
    current = outputs.outputs()
    text = model_content(current, notices=[], accepts_images=accepts_images)[0]
    details: dict[str, JsonValue] = {
        "outputs": cast(list[JsonValue], details_outputs(current)),
        "executionCount": None,
        "status": "running",
    }
    return AgentToolResult(content=[text], details=details)


class _Throttle:
    """Sends the latest update at most every `_UPDATE_INTERVAL_S`, the first one no sooner than that
    after the start: a cell that finishes quickly sends none, its result follows at once anyway."""

    def __init__(self, on_update: ToolUpdate) -> None:
        self._on_update = on_update
        self._latest: Callable[[], AgentToolResult] | None = None
        self._last_sent = time.monotonic()
        self._timer: asyncio.TimerHandle | None = None

    def push(self, build: Callable[[], AgentToolResult]) -> None:
        self._latest = build
        wait = self._last_sent + _UPDATE_INTERVAL_S - time.monotonic()
        if wait <= 0:
            self._flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(wait, self._flush)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._latest = None

    def _flush(self) -> None:
        self._timer = None
        build, self._latest = self._latest, None
        if build is not None:
            self._last_sent = time.monotonic()
            self._on_update(build())
