"""The `notebook_edit` tool: insert, replace, delete and move cells, all or none, never over a change the
model has not seen (`notebooks/guard.py`). Inserts into a path with no notebook create it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, JsonValue

from prime_jupyter.agent.tool import AgentTool, AgentToolResult, ToolUpdate, text_result
from prime_jupyter.ai.abort import AbortedError, AbortSignal
from prime_jupyter.errors import ToolError
from prime_jupyter.notebooks.cells import CellChange, Edit, Notebook, apply_edits, cells_of, find_cell, new_notebook
from prime_jupyter.notebooks.store import LoadedNotebook
from prime_jupyter.notebooks.workspace import NotebookWorkspace

__all__ = ["CellEdit", "NotebookEditParams", "make_notebook_edit_tool"]

DESCRIPTION = """\
Change a Jupyter notebook's cells; the edits apply in order, all or none. Each edit has an `action`: \
`insert` a new cell (`source`, `cell_type` default code) after the cell `after` (null: at the top); \
`replace` a cell's `source` (and/or `cell_type`; its outputs are cleared); `delete` a cell; `move` a \
cell to after `after` (null: the top). Cells are named by the ids notebook_read shows; a cell you \
replace, delete or move must have been read first and be unchanged since, or the edit is refused with \
its current source. Inserts into a path with no notebook create it. The result lists the ids made. \
Use this, not write or edit, for .ipynb files."""


class CellEdit(BaseModel):
    action: Literal["insert", "replace", "delete", "move"]
    cell_id: str | None = Field(default=None, description="The cell to replace, delete or move.")
    after: str | None = Field(default=None, description="insert/move: the id of the cell to go after; null: the top.")
    cell_type: Literal["code", "markdown", "raw"] | None = Field(
        default=None, description="insert (default code) or replace."
    )
    source: str | None = Field(default=None, description="insert/replace: the cell's new text.")


class NotebookEditParams(BaseModel):
    path: str = Field(description="Path of the notebook, relative to the working directory or absolute.")
    edits: list[CellEdit] = Field(min_length=1, description="The edits, applied in order.")


def make_notebook_edit_tool(workspace: NotebookWorkspace) -> AgentTool[NotebookEditParams]:
    async def execute(
        tool_call_id: str, params: NotebookEditParams, signal: AbortSignal, on_update: ToolUpdate
    ) -> AgentToolResult:
        if signal.aborted:
            raise AbortedError(signal.reason or "aborted")
        edits = [Edit(e.action, e.cell_id, e.after, e.cell_type, e.source) for e in params.edits]
        provenance = workspace.provenance()

        def change(loaded: LoadedNotebook) -> tuple[Notebook, tuple[bool, list[CellChange]]]:
            created = loaded.content is None
            base = new_notebook(workspace.kernel_name) if loaded.content is None else loaded.content
            if created and any(edit.action != "insert" for edit in edits):
                raise ToolError(f"no notebook at {loaded.shown}: to create one, give only insert edits")
            existing = {str(cell.get("id")) for cell in cells_of(base)}
            for edit in edits:
                if edit.action != "insert" and edit.cell_id in existing:
                    workspace.memory.check(loaded.key, find_cell(base, str(edit.cell_id))[1], edit.action)
            content, changes = apply_edits(base, edits, provenance)
            return content, (created, changes)

        saved, (created, changes) = await workspace.update(params.path, change)
        for item in changes:
            if item.after is None:
                workspace.memory.forget(saved.key, item.cell_id)
            else:
                workspace.memory.remember(saved.key, item.cell_id, item.after)
        return text_result(_summary(saved.shown, created, changes), _details(saved.shown, created, changes))

    return AgentTool(
        name="notebook_edit",
        label="notebook_edit",
        description=DESCRIPTION,
        parameters=NotebookEditParams,
        execute=execute,
    )


def _summary(shown: str, created: bool, changes: list[CellChange]) -> str:
    verbs = {"insert": "inserted", "replace": "replaced", "delete": "deleted", "move": "moved"}
    lines = [f"{'Created' if created else 'Edited'} {shown}:"]
    for item in changes:
        where = f" (now at position {item.index + 1})" if item.action in ("insert", "move") else ""
        lines.append(f"- {verbs[item.action]} {item.cell_type} cell {item.cell_id}{where}")
    made = [item.cell_id for item in changes if item.action == "insert"]
    if made:
        lines.append(f"New cell ids: {', '.join(made)}")
    return "\n".join(lines)


def _details(shown: str, created: bool, changes: list[CellChange]) -> JsonValue:
    return {
        "path": shown,
        "created": created,
        "changes": [
            {
                "action": item.action,
                "cellId": item.cell_id,
                "cellType": item.cell_type,
                "before": item.before,
                "after": item.after,
                "index": item.index,
                "fromIndex": item.from_index,
                "beforeOutputs": item.before_outputs,
                "beforeExecutionCount": item.before_count,
            }
            for item in changes
        ],
    }
