"""The `notebook_read` tool: a notebook's cells with their ids, sources and outputs, and its kernel."""

from __future__ import annotations

from pydantic import BaseModel, Field, JsonValue

from prime_jupyter.agent.tool import AgentTool, AgentToolResult, ToolUpdate
from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.types import TextContent
from prime_jupyter.errors import ToolError
from prime_jupyter.notebooks.cells import cells_of, find_cell
from prime_jupyter.notebooks.render import render_cells
from prime_jupyter.notebooks.workspace import NotebookWorkspace

__all__ = ["NotebookReadParams", "make_notebook_read_tool"]

DESCRIPTION = """\
Read a Jupyter notebook (.ipynb): every cell's id, type, execution count, source and outputs (summarised), \
and which kernel the notebook is attached to. Give `cell_ids` to read only those cells. Cell ids are \
what `notebook_edit` and `notebook_run` take. Read a cell before you replace, delete or move it."""


LIVE = (
    "It is open in JupyterLab right now, in a collaborative session: the user sees your edits at once, and "
    "may be typing in it too."
)
"""What the model is told of a notebook read from a collaborative room (`notebooks/collab.py`)."""


class NotebookReadParams(BaseModel):
    path: str = Field(description="Path of the notebook, relative to the working directory or absolute.")
    cell_ids: list[str] | None = Field(default=None, description="Only these cells (default: all).")


def make_notebook_read_tool(workspace: NotebookWorkspace, *, accepts_images: bool) -> AgentTool[NotebookReadParams]:
    async def execute(
        tool_call_id: str, params: NotebookReadParams, signal: AbortSignal, on_update: ToolUpdate
    ) -> AgentToolResult:
        loaded = await workspace.load(params.path)
        if loaded.content is None:
            raise ToolError(f"no notebook at {loaded.shown}: create one with notebook_edit (insert cells)")
        every = cells_of(loaded.content)
        cells = [find_cell(loaded.content, i)[1] for i in params.cell_ids] if params.cell_ids else every
        kernel = await workspace.attached(loaded)
        count = f"{len(every)} cell{'' if len(every) == 1 else 's'}"
        header = f"Notebook {loaded.shown}: {count}. Kernel: {kernel}."
        if loaded.live:
            header += f" {LIVE}"
        rendered = render_cells(cells, header=header, accepts_images=accepts_images)
        workspace.memory.remember_cells(loaded.key, rendered.shown)
        details: dict[str, JsonValue] = {
            "path": loaded.shown,
            "cells": [str(c.get("id")) for c in rendered.shown],
            "cellCount": len(every),
            "kernel": kernel,
            "live": loaded.live,
        }
        return AgentToolResult([TextContent(text=rendered.text), *rendered.images], details)

    return AgentTool(
        name="notebook_read",
        label="notebook_read",
        description=DESCRIPTION,
        parameters=NotebookReadParams,
        execute=execute,
        execution_mode="parallel",
    )
