"""The `notebook_run` tool: run a notebook's code cells in the notebook's own kernel, saving each cell's
outputs and execution count into the notebook as it finishes, like "Run all" (stopping at the first
error). The model gets each cell's outputs through the kernel's output budget.

Each cell runs the source the notebook holds when its turn comes (so a cell the user just changed runs
as they changed it). A cell deleted meanwhile, or a notebook deleted or renamed, ends the run with an
error and nothing is written anywhere else. A kernel that dies keeps the outputs so far and puts the
error in the cell. In a notebook the user has open in a collaborative room, the outputs so far are also
saved while the cell runs, a few times a second, so the user watches them arrive.
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field, JsonValue

from prime_jupyter.agent.tool import AgentTool, AgentToolResult, ToolUpdate
from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.types import ImageContent, TextContent
from prime_jupyter.errors import ToolError
from prime_jupyter.kernel.budget import MAX_IMAGES, details_outputs, model_content
from prime_jupyter.kernel.execution import CellRun, run_cell
from prime_jupyter.kernel.ops import KernelError
from prime_jupyter.kernel.outputs import Output, OutputAccumulator
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner
from prime_jupyter.notebooks.cells import Notebook, cell_source, cells_of, find_cell, nbformat_output
from prime_jupyter.notebooks.store import LoadedNotebook
from prime_jupyter.notebooks.workspace import NotebookWorkspace
from prime_jupyter.tools._throttle import Throttle

__all__ = ["NotebookRunParams", "make_notebook_run_tool"]

DESCRIPTION = """\
Run a Jupyter notebook's code cells in the notebook's own kernel (its variables are the notebook's), \
in order, stopping at the first error; each cell's outputs are saved into the notebook and returned \
to you. Give `cell_ids` to run only those cells (in notebook order); with none, every code cell runs."""

_CELL_OUTPUT_CHARS = 4_000
_LIVE_INTERVAL_S = 0.25


class NotebookRunParams(BaseModel):
    path: str = Field(description="Path of the notebook, relative to the working directory or absolute.")
    cell_ids: list[str] | None = Field(default=None, description="Only these code cells (default: all code cells).")


def make_notebook_run_tool(workspace: NotebookWorkspace, *, accepts_images: bool) -> AgentTool[NotebookRunParams]:
    async def execute(
        tool_call_id: str, params: NotebookRunParams, signal: AbortSignal, on_update: ToolUpdate
    ) -> AgentToolResult:
        loaded = await workspace.load(params.path)
        if loaded.content is None:
            raise ToolError(f"no notebook at {loaded.shown}")
        order = _chosen(loaded.content, params.cell_ids)
        provisioner = workspace.provisioner(loaded)
        texts: list[str] = []
        images: list[ImageContent] = []
        ran: list[JsonValue] = []
        failed = False
        for cell_id in order:
            if signal.aborted:
                texts.append("Aborted: the remaining cells did not run.")
                failed = True
                break
            try:
                source, at = await _current_source(workspace, params.path, cell_id)
            except ToolError as error:
                texts.append(f"cell {cell_id} did not run: {error}")
                failed = True
                break
            on_update(
                AgentToolResult(
                    [TextContent(text=f"Running cell {cell_id}...")],
                    {"status": "running", "cellId": cell_id, "cells": ran},
                )
            )
            run, unsaved = await _run_and_save(workspace, provisioner, (params.path, at), cell_id, source, signal)
            if unsaved is not None:
                texts.append(f"cell {cell_id}: ran, but its outputs could not be saved: {unsaved}")
                failed = True
                break
            content = model_content(
                run.outputs,
                notices=run.notices,
                accepts_images=accepts_images and len(images) < MAX_IMAGES,
                limit=_CELL_OUTPUT_CHARS,
            )
            first = content[0]
            shown = first.text if isinstance(first, TextContent) else ""
            texts.append(f"### cell {cell_id} [{run.execution_count or ' '}] {run.status}\n{shown}")
            images.extend(b for b in content[1:] if isinstance(b, ImageContent))
            ran.append({"cellId": cell_id, "status": run.status, "executionCount": run.execution_count})
            if run.status != "ok":
                failed = True
                rest = order[order.index(cell_id) + 1 :]
                if rest:
                    texts.append(f"Stopped at cell {cell_id}; not run: {', '.join(rest)}")
                break
        summary = (
            f"Ran {len(ran)} of {len(order)} code cells of {loaded.shown} in its kernel ({provisioner.kernel_name})."
        )
        details: dict[str, JsonValue] = {
            "path": loaded.shown,
            "cells": ran,
            "kernelId": provisioner.kernel_id,
            "isError": failed,
        }
        return AgentToolResult(
            [TextContent(text="\n\n".join([summary, *texts])), *images[:MAX_IMAGES]], details, is_error=failed
        )

    return AgentTool(
        name="notebook_run",
        label="notebook_run",
        description=DESCRIPTION,
        parameters=NotebookRunParams,
        execute=execute,
    )


def _chosen(content: Notebook, cell_ids: list[str] | None) -> list[str]:
    cells = cells_of(content)
    if not cell_ids:
        return [str(c.get("id")) for c in cells if c.get("cell_type") == "code"]
    wanted = set(cell_ids)
    for cell_id in cell_ids:
        _, cell = find_cell(content, cell_id)
        if cell.get("cell_type") != "code":
            raise ToolError(f"cell {cell_id} is a {cell.get('cell_type')} cell: only code cells run")
    return [str(c.get("id")) for c in cells if c.get("id") in wanted]


def _shaped(outputs: list[Output]) -> list[JsonValue]:
    shaped = [nbformat_output(o) for o in details_outputs(outputs)]
    return [o for o in shaped if o is not None]


def _saved_outputs(run: CellRun) -> list[JsonValue]:
    outputs = _shaped(run.outputs)
    if run.status == "died" or (run.status != "ok" and not any(_is_error(o) for o in outputs)):
        reason = " ".join(run.notices) or f"the run ended: {run.status}"
        outputs.append(
            {"output_type": "error", "ename": _ENAMES.get(run.status, "Error"), "evalue": reason, "traceback": [reason]}
        )
    return outputs


_ENAMES = {"died": "DeadKernelError", "timeout": "TimeoutError", "aborted": "Aborted"}


def _is_error(output: JsonValue) -> bool:
    return isinstance(output, dict) and output.get("output_type") == "error"


async def _current_source(workspace: NotebookWorkspace, path: str, cell_id: str) -> tuple[str, LoadedNotebook]:
    """The cell's source now, and the notebook it was read from."""
    loaded = await workspace.load(path)
    if loaded.content is None:
        raise ToolError(f"{loaded.shown} was deleted or renamed during the run")
    return cell_source(find_cell(loaded.content, cell_id)[1]), loaded


async def _run_and_save(
    workspace: NotebookWorkspace,
    provisioner: IpythonKernelProvisioner,
    where: tuple[str, LoadedNotebook],
    cell_id: str,
    source: str,
    signal: AbortSignal,
) -> tuple[CellRun, str | None]:
    """Run the cell and save its outputs (as they arrive, in a live notebook, which shows the cell running
    meanwhile); the run, and why its outputs could not be saved (None: they were). `where`: the path as
    the model gave it, and the notebook as the cell's source was read from it."""
    path, at = where
    arriving = _LiveOutputs(workspace, path, cell_id) if at.live else None
    await workspace.store.show_running(at, cell_id, True)
    try:
        try:
            run = await run_cell(
                provisioner,
                source,
                timeout_s=workspace.timeout_s,
                signal=signal,
                on_output=arriving.arrived if arriving else None,
            )
        except KernelError as error:
            raise ToolError(f"the notebook's kernel is not available: {error}") from error
        finally:
            if arriving is not None:
                await arriving.close()
        try:
            await workspace.save_outputs(path, cell_id, _saved_outputs(run), run.execution_count)
        except ToolError as error:
            return run, str(error)
        return run, None
    finally:
        await workspace.store.show_running(at, cell_id, False)


class _LiveOutputs:
    """A running cell's outputs so far, saved into a live notebook at most every `_LIVE_INTERVAL_S`, one
    save at a time; the run's own save at the end comes after the last of these (`close`)."""

    def __init__(self, workspace: NotebookWorkspace, path: str, cell_id: str) -> None:
        self._workspace, self._path, self._cell_id = workspace, path, cell_id
        self._outputs: OutputAccumulator | None = None
        self._throttle = Throttle(self._emit, _LIVE_INTERVAL_S)
        self._saving: asyncio.Task[None] | None = None
        self._again = False
        self._closed = False

    def arrived(self, outputs: OutputAccumulator) -> None:
        self._outputs = outputs  # shaped when saved: a chatty cell sends far more than a few a second
        self._throttle.poke()

    def _emit(self) -> None:
        if self._closed:
            return
        if self._saving is not None and not self._saving.done():
            self._again = True
            return
        self._saving = asyncio.create_task(self._save())

    async def _save(self) -> None:
        while True:
            self._again = False
            outputs = _shaped(self._outputs.outputs()) if self._outputs is not None else []
            try:
                await self._workspace.save_outputs(self._path, self._cell_id, outputs, None)
            except ToolError:
                return  # the run's own save at the end reports what is wrong
            if not self._again or self._closed:
                return

    async def close(self) -> None:
        self._closed = True
        self._throttle.close()
        if self._saving is not None:
            await self._saving
