"""Never a lost edit: a cell is changed only as the model last read it.

The memory holds each cell's source as the model was last shown it (by `notebook_read`, by its own
edits, or by a refusal). A `replace`, `delete` or `move` of a cell whose source differs (the user typed,
another client saved) or that the model never saw is refused, and the refusal carries the current
source, which the memory then holds, so a deliberate retry goes through.
"""

from __future__ import annotations

from prime_jupyter.errors import ToolError
from prime_jupyter.notebooks.cells import Cell, cell_source

__all__ = ["ReadMemory"]

_SHOWN_CHARS = 4_000


class ReadMemory:
    """What the model has seen of each cell, per notebook (keyed by the store's notebook key)."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], str] = {}

    def remember(self, key: str, cell_id: str, source: str) -> None:
        self._seen[(key, cell_id)] = source

    def remember_cells(self, key: str, cells: list[Cell]) -> None:
        for cell in cells:
            if isinstance(cell.get("id"), str):
                self.remember(key, str(cell["id"]), cell_source(cell))

    def forget(self, key: str, cell_id: str) -> None:
        self._seen.pop((key, cell_id), None)

    def forget_notebook(self, key: str) -> None:
        for seen in [k for k in self._seen if k[0] == key]:
            del self._seen[seen]

    def check(self, key: str, cell: Cell, action: str) -> None:
        """Raise a `ToolError` carrying the current source unless the model saw `cell` as it is now."""
        cell_id = str(cell.get("id"))
        current = cell_source(cell)
        seen = self._seen.get((key, cell_id))
        if seen == current:
            return
        self.remember(key, cell_id, current)
        if seen is None:
            reason = f"cell {cell_id} was not read before this {action}, so it was left as it is"
        else:
            reason = (
                f"cell {cell_id} changed since you last read it (the user or another client edited it), "
                f"so the {action} was refused and the cell left as it is"
            )
        raise ToolError(f"{reason}. Its current source is:\n{_shown(current)}\nRetry the edit against this source")


def _shown(source: str) -> str:
    if len(source) <= _SHOWN_CHARS:
        return f"```\n{source}\n```"
    half = _SHOWN_CHARS // 2
    return f"```\n{source[:half]}\n[... {len(source) - 2 * half:,} characters omitted ...]\n{source[-half:]}\n```"
