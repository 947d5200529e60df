"""Notebooks through their shared document when the user has them open in a collaborative Lab.

With `jupyter-collaboration` (the `prime-jupyter[collab]` extra) a notebook open in Lab lives in a
collaborative room: a pycrdt document (a jupyter_ydoc `YNotebook`) that every client edits and the
room saves to disk. Writing the file through the contents manager then would be an "out-of-band
change": the room reloads the file over its document, and whatever the user typed in between is gone.
So while a room is open, `CollabNotebookStore` reads and writes the room's document instead, and the
user sees each change at once:

- a load is the document as it is now; its version is the document's state vector, which any update
  from any client changes;
- a save checks that version, then applies the difference between the document and the new content as
  cell-level operations in one transaction: a deleted cell is deleted, an inserted one inserted, a
  moved one deleted and inserted at its place (Lab's Yjs has no move), and a changed cell is changed
  in place (its source by a granular text diff, its outputs, count and metadata key by key). Cells the
  edit did not touch are not touched, so the user's typing in them, and in the same cell's source
  while the agent writes its outputs, merges as any collaborator's would;
- a run writes a cell's outputs into that one cell (`write_outputs`, a few times a second while it
  runs) and marks it running meanwhile (`show_running`: Lab's `[*]`).

Without a room (the notebook is not open, or collaboration is not installed) every call goes to the
contents store. The guard (`guard.py`) is unchanged: it compares against what a load returns.

pycrdt and jupyter_ydoc are imported only when a room is found, so the layer works without them.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from pydantic import JsonValue

from prime_jupyter.errors import ToolError
from prime_jupyter.notebooks.cells import Cell, Notebook, cell_source, cells_of
from prime_jupyter.notebooks.contents import ContentsNotebookStore
from prime_jupyter.notebooks.store import LoadedNotebook, NotebookChangedError

__all__ = ["CollabNotebookStore", "SharedNotebooks", "YDocRooms"]

_ROOM = "room:"
"""The prefix of a version that came from a room (a contents version is a timestamp)."""
_log = logging.getLogger(__name__)


class SharedNotebooks(Protocol):
    async def document(self, path: str) -> Any | None:
        """The live shared notebook (a jupyter_ydoc `YNotebook`) of the notebook at API path `path` when
        a collaborative room has it open, else None. Contract: must not raise."""
        ...


class YDocRooms:
    """The rooms of jupyter_server_ydoc's `YDocExtension` (found by `extension()`, None when it is not
    loaded). Only rooms that exist are used: looking one up never opens one, nor gives the file an id."""

    def __init__(self, extension: Callable[[], Any | None]) -> None:
        self._extension = extension

    async def document(self, path: str) -> Any | None:
        extension = self._extension()
        if extension is None:
            return None
        try:
            settings = extension.serverapp.web_app.settings
            ids = settings.get("file_id_manager")  # rooms are named by file id (jupyter_server_fileid)
            if ids is None or ids.get_id(path) is None:
                return None  # never opened, so no room: and looking a room up by path would index the file
            return await extension.get_document(
                path=path, content_type="notebook", file_format="json", copy=False, create=False
            )
        except Exception:  # a broken room must not break the tools: the contents manager still works
            _log.warning("could not look up the collaborative room of %s", path, exc_info=True)
            return None


class CollabNotebookStore:
    """A `NotebookStore`: the shared document while a room has the notebook open, else `contents`."""

    def __init__(self, contents: ContentsNotebookStore, rooms: SharedNotebooks) -> None:
        self.contents = contents
        self.rooms = rooms

    def locate(self, path: str) -> tuple[str, str, str]:
        return self.contents.locate(path)

    async def load(self, path: str) -> LoadedNotebook:
        key, shown, kernel_path = self.locate(path)
        document = await self.rooms.document(key)
        if document is None:
            return await self.contents.load(path)
        if not _is_loaded(document):
            raise ToolError(f"{shown} is being opened in a collaborative session right now; try again in a moment")
        return LoadedNotebook(key, shown, read_document(document), _version(document), kernel_path, live=True)

    async def save(self, loaded: LoadedNotebook, content: Notebook) -> LoadedNotebook:
        document = await self.rooms.document(loaded.key)
        from_room = loaded.version is not None and loaded.version.startswith(_ROOM)
        if not from_room:
            if document is not None:  # the user opened it since: go through the room, never around it
                raise NotebookChangedError(loaded.shown)
            return await self.contents.save(loaded, content)
        if document is None or _version(document) != loaded.version:
            raise NotebookChangedError(loaded.shown)
        apply_to_document(document, content)
        return LoadedNotebook(loaded.key, loaded.shown, content, _version(document), loaded.kernel_path, live=True)

    async def write_outputs(self, path: str, cell_id: str, outputs: list[JsonValue], count: int | None) -> bool:
        """In a room: the one cell's outputs, not a whole-notebook diff (a run saves a few times a second,
        and reading a notebook with many images takes tens of milliseconds)."""
        key, shown, _ = self.locate(path)
        document = await self.rooms.document(key)
        if document is None or not _is_loaded(document):
            return False
        for ycell in document.ycells:
            if ycell.get("id") == cell_id:
                if ycell.get("cell_type") != "code":
                    raise ToolError(f"cell {cell_id} of {shown} is no longer a code cell")
                with document.ydoc.transaction():
                    _set_outputs(ycell, outputs)
                    if ycell.get("execution_count") != count:
                        ycell["execution_count"] = count
                return True
        raise ToolError(f"cell {cell_id} is no longer in {shown} (it was deleted while it ran)")

    async def show_running(self, loaded: LoadedNotebook, cell_id: str, running: bool) -> None:
        if not loaded.live:
            return await self.contents.show_running(loaded, cell_id, running)
        document = await self.rooms.document(loaded.key)
        for ycell in document.ycells if document is not None else ():
            if ycell.get("id") == cell_id and ycell.get("cell_type") == "code":
                state = "running" if running else "idle"  # what Lab's shared cell model shows as `[*]`
                if ycell.get("execution_state") != state:
                    ycell["execution_state"] = state
                return


def _version(document: Any) -> str:
    return _ROOM + bytes(document.ydoc.get_state()).hex()


def _meta(document: Any) -> Any:
    from pycrdt import Map

    return document.ydoc.get("meta", type=Map)


def _is_loaded(document: Any) -> bool:
    """A room that is still loading the file has no notebook format yet."""
    return "nbformat" in _meta(document)


def _plain(value: Any) -> Any:
    """A value read from the document with Yjs's floats made ints again where they are whole."""
    from jupyter_ydoc.utils import cast_all

    return cast_all(value, float, int) if isinstance(value, list | dict) else value


def _cell_of(ycell: Any) -> Cell:
    cell = _plain(ycell.to_py())
    cell.pop("execution_state", None)  # the room's, not the notebook's
    if isinstance(cell.get("execution_count"), float):
        cell["execution_count"] = int(cell["execution_count"])
    return dict(cell)


def read_document(document: Any) -> Notebook:
    """The notebook a shared document holds now (every cell with its id, as the room stores it)."""
    meta = _plain(_meta(document).to_py())
    cells: list[JsonValue] = [_cell_of(ycell) for ycell in document.ycells]
    return {
        "cells": cells,
        "metadata": meta.get("metadata") or {},
        "nbformat": int(meta.get("nbformat", 4)),
        "nbformat_minor": int(meta.get("nbformat_minor", 5)),
    }


def apply_to_document(document: Any, content: Notebook) -> None:
    """Make the shared document hold `content` with cell-level operations, in one transaction."""
    wanted = cells_of(content)
    with document.ydoc.transaction():
        _apply_meta(document, content)
        ycells = document.ycells
        current = [str(ycell.get("id")) for ycell in ycells]
        now: dict[str, Cell] = {}
        for cell_id, ycell in zip(current, ycells, strict=True):
            now.setdefault(cell_id, _cell_of(ycell))
        by_id = {str(cell.get("id")): cell for cell in wanted}
        kept = {
            cell_id
            for cell_id in _kept_in_order(current, [str(c.get("id")) for c in wanted])
            if now[cell_id].get("cell_type") == by_id[cell_id].get("cell_type")  # a new type: a new cell
        }
        seen: set[str] = set()
        doomed = []
        for index, cell_id in enumerate(current):
            if cell_id not in kept or cell_id in seen:
                doomed.append(index)
            seen.add(cell_id)
        for index in reversed(doomed):
            del ycells[index]
        for index, cell in enumerate(wanted):
            cell_id = str(cell.get("id"))
            if index < len(ycells) and str(ycells[index].get("id")) == cell_id:
                _update_cell(document, index, now[cell_id], cell)
            else:
                ycells.insert(index, document.create_ycell(_storable(cell)))


def _kept_in_order(current: Sequence[str], wanted: Sequence[str]) -> list[str]:
    """The longest run of cells that are in both and in the same order (a longest increasing
    subsequence of their current positions): these stay where they are, the others move."""
    position = {cell_id: index for index, cell_id in reversed(list(enumerate(current)))}
    seq = [cell_id for cell_id in dict.fromkeys(wanted) if cell_id in position]
    tails: list[int] = []  # tails[k]: index in seq of the smallest tail of a run of length k + 1
    previous: list[int] = [-1] * len(seq)
    for i, cell_id in enumerate(seq):
        low, high = 0, len(tails)
        while low < high:
            middle = (low + high) // 2
            if position[seq[tails[middle]]] < position[cell_id]:
                low = middle + 1
            else:
                high = middle
        previous[i] = tails[low - 1] if low else -1
        if low == len(tails):
            tails.append(i)
        else:
            tails[low] = i
    run: list[str] = []
    i = tails[-1] if tails else -1
    while i != -1:
        run.append(seq[i])
        i = previous[i]
    return run[::-1]


def _storable(cell: Cell) -> dict[str, Any]:
    stored = copy.deepcopy(dict(cell))
    stored["source"] = cell_source(cell)
    return stored


def _update_cell(document: Any, index: int, now: Cell, cell: Cell) -> None:
    ycell = document.ycells[index]
    source = cell_source(cell)
    if cell_source(now) != source:
        from pycrdt import Text

        if isinstance(ycell.get("source"), Text):
            document.set_cell(index, source=source)  # a granular diff: the rest of the text stays the user's
        else:  # a client that stored the source as a plain string: there is no shared text to diff
            ycell["source"] = Text(source)
    for key in set(now) | set(cell):
        if key in ("id", "source", "cell_type") or now.get(key) == cell.get(key):
            continue
        if key not in cell:
            del ycell[key]
        elif key == "outputs":
            _set_outputs(ycell, cell["outputs"])
        elif key == "metadata" and isinstance(cell["metadata"], dict):
            _set_map(ycell, "metadata", cell["metadata"])
        else:
            ycell[key] = copy.deepcopy(cell[key])


def _set_outputs(ycell: Any, outputs: JsonValue) -> None:
    from pycrdt import Array, Map, Text

    made = []
    for output in outputs if isinstance(outputs, list) else []:
        if not isinstance(output, dict):
            continue
        item: dict[str, Any] = copy.deepcopy(output)
        if item.get("output_type") == "stream":  # as jupyter_ydoc stores it: the text is shared text
            text = item.get("text", "")
            item["text"] = Text("".join(str(t) for t in text) if isinstance(text, list) else str(text or ""))
        made.append(Map(item))
    youtputs = ycell.get("outputs")
    if not isinstance(youtputs, Array):
        ycell["outputs"] = Array(made)
        return
    youtputs.clear()
    youtputs.extend(made)


def _set_map(container: Any, key: str, value: dict[str, JsonValue]) -> None:
    """`container[key]` (a shared map) made to hold `value`, changing only the keys that differ."""
    from pycrdt import Map

    ymap = container.get(key)
    if not isinstance(ymap, Map):
        container[key] = Map(copy.deepcopy(value))
        return
    old = _plain(ymap.to_py()) or {}
    for name in set(old) - set(value):
        del ymap[name]
    for name, item in value.items():
        if old.get(name) != item:
            ymap[name] = copy.deepcopy(item)


def _apply_meta(document: Any, content: Notebook) -> None:
    ymeta = _meta(document)
    for name in ("nbformat", "nbformat_minor"):
        value = content.get(name)
        if isinstance(value, int) and _plain(ymeta.get(name)) != value:
            ymeta[name] = value
    metadata = content.get("metadata")
    if isinstance(metadata, dict):
        _set_map(ymeta, "metadata", metadata)
