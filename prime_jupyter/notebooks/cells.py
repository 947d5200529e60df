"""A notebook's cells as the notebook tools change them: pure functions on nbformat 4 JSON.

A notebook here is the plain JSON dict of an `.ipynb` file (nbformat 4). Edits apply all or none: a
batch is applied to a copy, and the copy is returned only when every edit succeeded, so a failing edit
in the middle of a batch leaves nothing half done. Cells get stable ids (nbformat 4.5): a notebook
written before 4.5 has none, so each is given one derived from its source (the same on every read until
the first write stores them), and the first write records them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pydantic import JsonValue

from prime_jupyter.errors import ToolError

__all__ = [
    "Cell",
    "CellChange",
    "CellType",
    "Edit",
    "EditAction",
    "Notebook",
    "apply_edits",
    "cell_source",
    "ensure_ids",
    "find_cell",
    "kernel_name_of",
    "nbformat_output",
    "new_notebook",
]

Notebook: TypeAlias = dict[str, JsonValue]
Cell: TypeAlias = dict[str, JsonValue]
CellType: TypeAlias = Literal["code", "markdown", "raw"]
EditAction: TypeAlias = Literal["insert", "replace", "delete", "move"]
Provenance: TypeAlias = Callable[[], dict[str, JsonValue]]

_OUTPUT_FIELDS: dict[str, tuple[str, ...]] = {
    "stream": ("name", "text"),
    "display_data": ("data", "metadata"),
    "execute_result": ("data", "metadata", "execution_count"),
    "error": ("ename", "evalue", "traceback"),
}


@dataclass(frozen=True, slots=True)
class Edit:
    action: EditAction
    cell_id: str | None = None
    after: str | None = None
    """insert/move: the id of the cell to put it after; None: at the top."""
    cell_type: CellType | None = None
    source: str | None = None


@dataclass(frozen=True, slots=True)
class CellChange:
    """What one edit did, for the model's summary and the review card."""

    action: EditAction
    cell_id: str
    cell_type: str
    before: str | None
    after: str | None
    index: int
    """Where the cell is after the edit (for a delete: where it was)."""
    from_index: int | None = None
    """A move's position before it."""
    before_outputs: list[JsonValue] | None = None
    """A replaced or deleted code cell's outputs, so a review can restore them (None when too large)."""
    before_count: int | None = None


def cells_of(notebook: Notebook) -> list[Cell]:
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        raise ToolError("the notebook has no `cells` list")
    return [cell for cell in cells if isinstance(cell, dict)]


def cell_source(cell: Cell) -> str:
    """The source as one string (nbformat allows a list of lines on disk)."""
    source = cell.get("source", "")
    if isinstance(source, list):
        return "".join(str(line) for line in source)
    return str(source) if source is not None else ""


def ensure_ids(notebook: Notebook) -> bool:
    """Give every cell an id (derived from its source, unique in the notebook); True when any was added.

    Upgrades the notebook to nbformat 4.5, the first minor version with ids.
    """
    cells = cells_of(notebook)
    taken = {str(cell["id"]) for cell in cells if isinstance(cell.get("id"), str) and cell["id"]}
    added = False
    for cell in cells:
        if isinstance(cell.get("id"), str) and cell["id"]:
            continue
        base = hashlib.sha1(cell_source(cell).encode("utf-8", "replace")).hexdigest()[:8]
        candidate, n = base, 1
        while candidate in taken:
            n += 1
            candidate = f"{base}-{n}"
        cell["id"] = candidate
        taken.add(candidate)
        added = True
    minor = notebook.get("nbformat_minor")
    if added or not isinstance(minor, int) or minor < 5:
        notebook["nbformat_minor"] = max(minor if isinstance(minor, int) else 0, 5)
    return added


def find_cell(notebook: Notebook, cell_id: str) -> tuple[int, Cell]:
    """The index and cell with `cell_id`; a `ToolError` listing the notebook's ids when there is none."""
    cells = cells_of(notebook)
    for index, cell in enumerate(cells):
        if cell.get("id") == cell_id:
            return index, cell
    raise ToolError(f"no cell has the id {cell_id!r}; this notebook's cell ids are: {_id_list(cells)}")


def _id_list(cells: Sequence[Cell]) -> str:
    ids = [str(cell.get("id")) for cell in cells]
    if not ids:
        return "(none: the notebook is empty; insert with after=null)"
    shown = ", ".join(ids[:200])
    return shown + (f", ... ({len(ids) - 200} more)" if len(ids) > 200 else "")


def new_cell(cell_type: CellType, source: str, taken: set[str], provenance: dict[str, JsonValue]) -> Cell:
    cell_id = secrets.token_hex(4)
    while cell_id in taken:
        cell_id = secrets.token_hex(4)
    cell: Cell = {"cell_type": cell_type, "id": cell_id, "metadata": {"prime": provenance}, "source": source}
    if cell_type == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    return cell


def apply_edits(
    notebook: Notebook, edits: Sequence[Edit], provenance: dict[str, JsonValue]
) -> tuple[Notebook, list[CellChange]]:
    """`notebook` with `edits` applied in order (to a copy), and what each did; raises `ToolError`
    naming the failing edit, leaving `notebook` as it was. An insert after a cell inserted earlier in the
    same batch may name that cell's id (returned in the changes)."""
    result = copy.deepcopy(notebook)
    ensure_ids(result)
    changes: list[CellChange] = []
    for number, edit in enumerate(edits, 1):
        try:
            changes.append(_apply(result, edit, provenance))
        except ToolError as error:
            prefix = f"edit {number} of {len(edits)} ({edit.action})" if len(edits) > 1 else edit.action
            done = " No edit was applied." if len(edits) > 1 else ""
            raise ToolError(f"{prefix}: {error}.{done}") from error
    return result, changes


def _apply(notebook: Notebook, edit: Edit, provenance: dict[str, JsonValue]) -> CellChange:
    cells = notebook["cells"]
    assert isinstance(cells, list)
    if edit.action == "insert":
        if edit.source is None:
            raise ToolError("an insert needs `source` (the new cell's text)")
        index = _position_after(notebook, edit.after)
        taken = {str(c.get("id")) for c in cells_of(notebook)}
        cell = new_cell(edit.cell_type or "code", edit.source, taken, provenance)
        cells.insert(index, cell)
        return CellChange("insert", str(cell["id"]), str(cell["cell_type"]), None, edit.source, index)
    if not edit.cell_id:
        raise ToolError(f"a {edit.action} needs `cell_id`")
    index, cell = find_cell(notebook, edit.cell_id)
    before = cell_source(cell)
    kind = str(cell.get("cell_type", "code"))
    outputs, count = _kept_outputs(cell)
    if edit.action == "delete":
        del cells[index]
        return CellChange("delete", edit.cell_id, kind, before, None, index, None, outputs, count)
    if edit.action == "move":
        if edit.after == edit.cell_id:
            raise ToolError("a cell cannot be moved after itself")
        del cells[index]
        target = _position_after(notebook, edit.after)
        cells.insert(target, cell)
        return CellChange("move", edit.cell_id, kind, before, before, target, index)
    if edit.source is None and edit.cell_type is None:
        raise ToolError("a replace needs `source`, `cell_type` or both")
    _replace(cell, edit, provenance)
    after = cell_source(cell)
    return CellChange("replace", edit.cell_id, str(cell["cell_type"]), before, after, index, None, outputs, count)


_KEPT_OUTPUT_CHARS = 100_000


def _kept_outputs(cell: Cell) -> tuple[list[JsonValue] | None, int | None]:
    """A code cell's outputs and execution count as they were, when small enough to carry in a result."""
    outputs = cell.get("outputs")
    count = cell.get("execution_count")
    if cell.get("cell_type") != "code" or not isinstance(outputs, list):
        return None, None
    if len(json.dumps(outputs)) > _KEPT_OUTPUT_CHARS:
        return None, count if isinstance(count, int) else None
    return copy.deepcopy(outputs), count if isinstance(count, int) else None


def _replace(cell: Cell, edit: Edit, provenance: dict[str, JsonValue]) -> None:
    if edit.source is not None:
        cell["source"] = edit.source
    kind = edit.cell_type or str(cell.get("cell_type", "code"))
    if kind != cell.get("cell_type"):
        cell["cell_type"] = kind
        for key in ("outputs", "execution_count", "attachments"):
            cell.pop(key, None)
    if kind == "code":  # the old outputs belong to the old source
        cell["outputs"] = []
        cell["execution_count"] = None
    metadata = cell.get("metadata")
    cell["metadata"] = {**(metadata if isinstance(metadata, dict) else {}), "prime": provenance}


def _position_after(notebook: Notebook, after: str | None) -> int:
    if after is None:
        return 0
    index, _ = find_cell(notebook, after)
    return index + 1


def new_notebook(kernel_name: str = "python3") -> Notebook:
    """An empty nbformat 4.5 notebook for `kernel_name` (Python's language info when it is a Python kernel)."""
    metadata: dict[str, JsonValue] = {
        "kernelspec": {"name": kernel_name, "display_name": kernel_name, "language": "python"}
    }
    if kernel_name.startswith("python"):
        metadata["language_info"] = {"name": "python"}
    return {"cells": [], "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def kernel_name_of(notebook: Notebook) -> str | None:
    """The kernel spec the notebook asks for, from its metadata."""
    metadata = notebook.get("metadata")
    spec = metadata.get("kernelspec") if isinstance(metadata, dict) else None
    name = spec.get("name") if isinstance(spec, dict) else None
    return name if isinstance(name, str) and name else None


def nbformat_output(output: dict[str, JsonValue]) -> Cell | None:
    """An output with only the fields nbformat allows for its type (the kernel layer carries more, e.g.
    `transient`); None for what a notebook cannot hold."""
    kind = output.get("output_type")
    if not isinstance(kind, str) or kind not in _OUTPUT_FIELDS:
        return None
    shaped: Cell = {"output_type": kind}
    for name in _OUTPUT_FIELDS[kind]:
        value = output.get(name)
        if name in ("data", "metadata") and not isinstance(value, dict):
            value = {}
        elif name == "text" and isinstance(value, list):
            value = "".join(str(t) for t in value)
        elif name == "traceback" and not isinstance(value, list):
            value = []
        elif name in ("ename", "evalue", "name", "text") and not isinstance(value, str):
            value = "" if value is None else str(value)
        shaped[name] = value
    return shaped
