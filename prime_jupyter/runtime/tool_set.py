"""Building the model-facing tool set from names (`--tools ipython,read,bash`), and tools made of plain
Python functions (`function_tool`: the Python API's custom tools)."""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, create_model

from prime_jupyter.agent.tool import AgentTool, AgentToolResult, AnyTool, ToolUpdate, text_result
from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.events import ToolCallStartEvent
from prime_jupyter.ai.models import Model
from prime_jupyter.ai.types import ToolCall
from prime_jupyter.errors import ConfigError
from prime_jupyter.protocol.events import MessageUpdate, SessionEvent

if TYPE_CHECKING:
    from prime_jupyter.kernel.ops import KernelLauncher
    from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner
    from prime_jupyter.notebooks.workspace import NotebookWorkspace

__all__ = [
    "ALL_TOOLS",
    "DEFAULT_TOOLS",
    "AnyTool",
    "CallRunner",
    "ToolSet",
    "build_tool_set",
    "function_tool",
    "start_kernel_ahead",
]

ALL_TOOLS = ("ipython", "notebook_read", "notebook_edit", "notebook_run", "read", "write", "edit", "bash", "ask")
NOTEBOOK_TOOLS = ("notebook_read", "notebook_edit", "notebook_run")
DEFAULT_TOOLS = ("ipython", *NOTEBOOK_TOOLS)
KERNEL_TOOL = "ipython"
"""The tool whose calls run on the session's kernel."""

NOTEBOOK_GUIDANCE = """\
notebook_read / notebook_edit / notebook_run - the user's Jupyter notebooks (.ipynb): read cells with their \
ids, change them by id (read a cell before you replace, delete or move it), run them in the notebook's own \
kernel (its variables are the notebook's, not the ipython tool's). Never use write or edit on .ipynb files."""


@dataclass
class ToolSet:
    tools: list[AnyTool] = field(default_factory=list)
    guidance: str = ""
    disposers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    kernel: IpythonKernelProvisioner | None = None
    """The kernel of the `ipython` tool, when the set has it."""
    borrows_kernel: bool = False
    """The `ipython` tool runs in a notebook's own kernel, which is there already: attaching to it starts
    nothing, so the session attaches at once (and tells the model what it holds before the first prompt)."""
    notebooks: NotebookWorkspace | None = None
    """What the notebook tools share, when the set has them."""


@dataclass(frozen=True)
class KernelConfig:
    kernel_name: str = "python3"
    timeout_s: float = 600.0
    kernel_launcher: KernelLauncher | None = None
    """Where kernels come from; None: the process's shared local launcher (jupyter_client)."""


def build_tool_set(
    names: list[str],
    cwd: Path,
    model: Model,
    kernel: KernelConfig | None = None,
    notebooks: Callable[[], NotebookWorkspace] | None = None,
    notebook: str | None = None,
    file_root: Path | None = None,
    environment: Callable[[], dict[str, str]] | None = None,
) -> ToolSet:
    """The tools named; `notebooks` makes the notebook tools' workspace (default: notebooks on disk under
    `cwd`, each with a kernel of its own from the local launcher). With `notebook` (a path), the session
    is tied to that notebook: its `ipython` tool runs in the notebook's own kernel. `file_root` confines
    `read`, `write` and `edit` (a server's root; None: they act anywhere); `environment` makes the
    environment of each `bash` command (None: this process's)."""
    unknown = [n for n in names if n not in ALL_TOOLS or n == "ask"]
    if unknown:
        raise ConfigError(f"unknown tool(s) {', '.join(unknown)}: choose from {', '.join(ALL_TOOLS)}")
    result = ToolSet()
    config = kernel or KernelConfig()
    make = notebooks or (lambda: _disk_workspace(cwd, config))
    for name in names:
        if name == "ipython" and notebook is not None:
            _add_notebook_ipython(result, notebook, model, config, make)
        elif name == "ipython":
            _add_ipython(result, cwd, model, config)
        elif name in NOTEBOOK_TOOLS:
            _add_notebook_tool(result, name, model, make)
        else:
            root = str(file_root) if file_root is not None else None
            result.tools.append(_pi_tool(name, str(cwd), root, environment))
    return result


def start_kernel_ahead(kernel: IpythonKernelProvisioner) -> Callable[[SessionEvent], None]:
    """A session listener that starts the kernel as the model begins an `ipython` call: the start overlaps
    the rest of the call's streaming instead of following it, and a run that writes no code starts none
    (nor does a session that only talks: it holds no kernel, and closing it waits for none)."""

    def listen(event: SessionEvent) -> None:
        if not isinstance(event, MessageUpdate) or not isinstance(event.assistant_message_event, ToolCallStartEvent):
            return
        start = event.assistant_message_event
        content = start.partial.content
        block = content[start.content_index] if 0 <= start.content_index < len(content) else None
        if isinstance(block, ToolCall) and block.name == KERNEL_TOOL:
            kernel.prewarm()

    return listen


def _disk_workspace(cwd: Path, kernel: KernelConfig) -> NotebookWorkspace:
    from prime_jupyter.kernel.launchers import shared_local_launcher
    from prime_jupyter.notebooks.kernels import LocalNotebookKernels
    from prime_jupyter.notebooks.store import DiskNotebookStore
    from prime_jupyter.notebooks.workspace import NotebookWorkspace

    kernels = LocalNotebookKernels(shared_local_launcher())
    return NotebookWorkspace(
        DiskNotebookStore(str(cwd)), kernels, kernel_name=kernel.kernel_name, timeout_s=kernel.timeout_s
    )


def _workspace(result: ToolSet, make: Callable[[], NotebookWorkspace]) -> NotebookWorkspace:
    if result.notebooks is None:
        result.notebooks = make()
        result.disposers.append(result.notebooks.dispose)
    return result.notebooks


def _add_notebook_ipython(
    result: ToolSet, notebook: str, model: Model, kernel: KernelConfig, make: Callable[[], NotebookWorkspace]
) -> None:
    from prime_jupyter.tools.ipython import NOTEBOOK_KERNEL_PROMPT, make_ipython_tool

    provisioner = _workspace(result, make).provisioner_at(notebook)
    result.tools.append(make_ipython_tool(provisioner, accepts_images=model.accepts_images, timeout_s=kernel.timeout_s))
    prompt = NOTEBOOK_KERNEL_PROMPT.format(path=notebook)
    result.guidance = "\n\n".join(part for part in (prompt, result.guidance) if part)
    result.kernel = provisioner
    result.borrows_kernel = True


def _add_notebook_tool(result: ToolSet, name: str, model: Model, make: Callable[[], NotebookWorkspace]) -> None:
    if NOTEBOOK_GUIDANCE not in result.guidance:
        result.guidance = "\n\n".join(part for part in (result.guidance, NOTEBOOK_GUIDANCE) if part)
    workspace = _workspace(result, make)
    if name == "notebook_read":
        from prime_jupyter.tools.notebook_read import make_notebook_read_tool

        result.tools.append(make_notebook_read_tool(workspace, accepts_images=model.accepts_images))
    elif name == "notebook_edit":
        from prime_jupyter.tools.notebook_edit import make_notebook_edit_tool

        result.tools.append(make_notebook_edit_tool(workspace))
    else:
        from prime_jupyter.tools.notebook_run import make_notebook_run_tool

        result.tools.append(make_notebook_run_tool(workspace, accepts_images=model.accepts_images))


def _pi_tool(name: str, cwd: str, root: str | None, environment: Callable[[], dict[str, str]] | None) -> AnyTool:
    if name == "read":
        from prime_jupyter.tools.read import make_read_tool

        return make_read_tool(cwd, root)
    if name == "write":
        from prime_jupyter.tools.write import make_write_tool

        return make_write_tool(cwd, root)
    if name == "edit":
        from prime_jupyter.tools.edit import make_edit_tool

        return make_edit_tool(cwd, root)
    from prime_jupyter.tools.bash import make_bash_tool

    return make_bash_tool(cwd, environment)


def _add_ipython(result: ToolSet, cwd: Path, model: Model, kernel: KernelConfig) -> None:
    from prime_jupyter.kernel.inprocess import InProcessLauncher
    from prime_jupyter.tools.ipython import make_kernel_tool

    tool, guidance, provisioner = make_kernel_tool(
        cwd=cwd,
        accepts_images=model.accepts_images,
        kernel_name=kernel.kernel_name,
        timeout_s=kernel.timeout_s,
        launcher=kernel.kernel_launcher,
    )
    result.tools.append(tool)
    result.guidance = "\n\n".join(part for part in (guidance, result.guidance) if part)
    result.disposers.append(provisioner.dispose)
    result.kernel = provisioner
    result.borrows_kernel = isinstance(provisioner.launcher, InProcessLauncher)  # `%%prime`: the notebook's shell


CallRunner = Callable[[Callable[[], object]], Awaitable[object]]
"""Runs a synchronous tool function somewhere (a worker thread, the notebook shell's thread)."""


def function_tool(fn: Callable[..., object], *, run: CallRunner | None = None, name: str | None = None) -> AnyTool:
    """A model-facing tool that calls `fn`: its parameters' type hints become the JSON schema, its
    docstring the description, its return value (a `str`, else JSON, else `repr`) the result.

    A coroutine function is awaited on the agent's loop; a plain one runs through `run` (default: a
    worker thread). An exception it raises is a failed tool call the model sees.
    """
    tool_name = name or fn.__name__
    hints = typing.get_type_hints(fn)
    fields: dict[str, Any] = {
        param.name: (hints.get(param.name, Any), ... if param.default is inspect.Parameter.empty else param.default)
        for param in inspect.signature(fn).parameters.values()
    }
    params: type[BaseModel] = create_model(f"{tool_name}_params", **fields)
    runner: CallRunner = run or _in_thread

    async def execute(call_id: str, args: BaseModel, signal: AbortSignal, on_update: ToolUpdate) -> AgentToolResult:
        kwargs = {key: getattr(args, key) for key in fields}
        if inspect.iscoroutinefunction(fn):
            value = await fn(**kwargs)
        else:
            value = await runner(lambda: fn(**kwargs))
        return text_result(_result_text(value))

    description = inspect.getdoc(fn) or f"Call the Python function {tool_name}."
    return AgentTool(tool_name, tool_name, description, params, execute)


async def _in_thread(call: Callable[[], object]) -> object:
    import asyncio

    return await asyncio.to_thread(call)


def _result_text(value: object) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)
