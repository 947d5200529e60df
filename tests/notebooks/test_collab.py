"""The shared-document store (`notebooks/collab.py`) on real pycrdt documents: the agent's side is the
room's `YNotebook`, the user's a second one, and their concurrent changes meet as Yjs updates exchanged
in both directions (what the websocket does in a server, made deterministic here).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

pytest.importorskip("jupyter_ydoc", reason="the collab extra (jupyter-collaboration) is not installed")

from jupyter_server.services.contents.filemanager import AsyncFileContentsManager
from jupyter_ydoc import YNotebook

from prime_jupyter.errors import ToolError
from prime_jupyter.notebooks.cells import Edit, apply_edits
from prime_jupyter.notebooks.collab import CollabNotebookStore, apply_to_document, read_document
from prime_jupyter.notebooks.contents import ContentsNotebookStore
from prime_jupyter.notebooks.store import NotebookChangedError

PROVENANCE: dict[str, Any] = {"session": "s-1", "entry": "e-1", "model": "scripted/m"}


def shared(*cells: Any) -> tuple[YNotebook, YNotebook, list[str]]:
    """The room's document holding `cells`, a user's document synced with it, and the cells' ids."""
    nb = nbformat.v4.new_notebook(cells=list(cells))
    room = YNotebook()
    room.set(nbformat.from_dict(nb))
    user = YNotebook()
    user.ydoc.apply_update(room.ydoc.get_update())
    return room, user, [cell.id for cell in nb.cells]


def exchange(first: YNotebook, second: YNotebook) -> None:
    """Each side receives what the other did meanwhile."""
    to_second = first.ydoc.get_update(second.ydoc.get_state())
    to_first = second.ydoc.get_update(first.ydoc.get_state())
    second.ydoc.apply_update(to_second)
    first.ydoc.apply_update(to_first)


def type_into(document: YNotebook, index: int, text: str, at: int | None = None) -> None:
    source = document.ycells[index]["source"]
    source.insert(len(source) if at is None else at, text)


def edited(room: YNotebook, *edits: Edit) -> dict[str, Any]:
    content, _ = apply_edits(read_document(room), list(edits), PROVENANCE)
    return content


def sources(document: YNotebook) -> list[str]:
    return [str(cell["source"]) for cell in read_document(document)["cells"]]


def test_the_users_typing_elsewhere_merges_with_the_agents_inserts_replaces_and_outputs() -> None:
    room, user, (a, n) = shared(nbformat.v4.new_code_cell("a = 1"), nbformat.v4.new_markdown_cell("# Notes"))
    type_into(user, 1, " by hand")  # in flight while the agent edits
    type_into(user, 0, "# the user's comment\n", at=0)  # the cell whose outputs the agent writes
    content = edited(room, Edit("insert", after=a, source="b = 2"))
    content["cells"][0]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "ran\n"}]
    content["cells"][0]["execution_count"] = 7
    apply_to_document(room, content)
    exchange(room, user)
    assert read_document(room) == read_document(user)
    cells = read_document(room)["cells"]
    assert sources(room) == ["# the user's comment\na = 1", "b = 2", "# Notes by hand"]
    assert [c["id"] for c in cells][::2] == [a, n]
    assert cells[0]["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "ran\n"}]
    assert cells[0]["execution_count"] == 7 and cells[1]["metadata"]["prime"] == PROVENANCE
    nbformat.validate(nbformat.from_dict(room.get()))


def test_a_move_remakes_only_the_moved_cell_so_typing_in_the_others_survives() -> None:
    room, user, ids = shared(*(nbformat.v4.new_code_cell(f"x{i} = {i}") for i in range(4)))
    type_into(user, 2, "  # typed")
    apply_to_document(room, edited(room, Edit("move", cell_id=ids[0], after=ids[3])))
    exchange(room, user)
    assert [c["id"] for c in read_document(user)["cells"]] == [ids[1], ids[2], ids[3], ids[0]]
    assert sources(user) == ["x1 = 1", "x2 = 2  # typed", "x3 = 3", "x0 = 0"]


def test_a_replaced_source_changes_only_what_differs() -> None:
    room, user, (cell,) = shared(nbformat.v4.new_code_cell("total = compute(data)\nprint(total)"))
    type_into(user, 0, "\n# the user's line")  # after what the agent replaces
    apply_to_document(
        room, edited(room, Edit("replace", cell_id=cell, source="total = compute(data) * 2\nprint(total)"))
    )
    exchange(room, user)
    assert sources(user) == ["total = compute(data) * 2\nprint(total)\n# the user's line"]


def test_a_delete_and_a_new_cell_type() -> None:
    room, user, (a, b) = shared(nbformat.v4.new_code_cell("a"), nbformat.v4.new_code_cell("b"))
    apply_to_document(room, edited(room, Edit("delete", cell_id=a), Edit("replace", cell_id=b, cell_type="markdown")))
    exchange(room, user)
    (cell,) = read_document(user)["cells"]
    assert cell["id"] == b and cell["cell_type"] == "markdown" and "outputs" not in cell
    nbformat.validate(nbformat.from_dict(user.get()))


class Rooms:
    """The rooms the store looks in: a path's document while the user has it open."""

    def __init__(self) -> None:
        self.open: dict[str, YNotebook] = {}

    async def document(self, path: str) -> Any | None:
        return self.open.get(path)


def store(root: Path, rooms: Rooms) -> CollabNotebookStore:
    contents = ContentsNotebookStore(AsyncFileContentsManager(root_dir=str(root)), root_dir=str(root), cwd=str(root))
    return CollabNotebookStore(contents, rooms)


async def test_an_open_notebook_is_read_and_written_in_its_room_and_never_in_the_file(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("on disk")])
    nbformat.write(nb, tmp_path / "nb.ipynb")
    on_disk = (tmp_path / "nb.ipynb").read_bytes()
    room, user, _ = shared(nbformat.v4.new_code_cell("in the room"))
    rooms = Rooms()
    rooms.open["nb.ipynb"] = room
    notebooks = store(tmp_path, rooms)
    loaded = await notebooks.load("nb.ipynb")
    assert loaded.content is not None and sources(room) == ["in the room"]
    assert [c["source"] for c in loaded.content["cells"]] == ["in the room"]  # type: ignore[index, union-attr]
    type_into(user, 0, "!")
    exchange(room, user)  # the user typed after the load: the save refuses, the workspace reloads
    with pytest.raises(NotebookChangedError):
        await notebooks.save(loaded, edited(room, Edit("insert", source="new")))
    loaded = await notebooks.load("nb.ipynb")
    saved = await notebooks.save(loaded, edited(room, Edit("insert", source="new")))
    assert sources(room) == ["new", "in the room!"] and saved.version == (await notebooks.load("nb.ipynb")).version
    assert (tmp_path / "nb.ipynb").read_bytes() == on_disk


async def test_a_notebook_opened_after_it_was_loaded_from_the_file_is_saved_through_its_room(tmp_path: Path) -> None:
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]), tmp_path / "nb.ipynb")
    on_disk = (tmp_path / "nb.ipynb").read_bytes()
    rooms = Rooms()
    notebooks = store(tmp_path, rooms)
    loaded = await notebooks.load("nb.ipynb")
    assert loaded.version is not None and not loaded.version.startswith("room:")
    rooms.open["nb.ipynb"], _, _ = shared(nbformat.v4.new_code_cell("x = 1"))  # the user opens it in Lab
    with pytest.raises(NotebookChangedError):
        await notebooks.save(loaded, json.loads(json.dumps(loaded.content)))
    assert (tmp_path / "nb.ipynb").read_bytes() == on_disk
    del rooms.open["nb.ipynb"]  # closed again: the file is the notebook
    content = json.loads(json.dumps(loaded.content))
    content["cells"][0]["source"] = "x = 2"
    await notebooks.save(await notebooks.load("nb.ipynb"), content)
    assert nbformat.read(tmp_path / "nb.ipynb", as_version=4).cells[0].source == "x = 2"


async def test_a_runs_outputs_go_into_the_one_cell_of_an_open_notebook(tmp_path: Path) -> None:
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "nb.ipynb")
    room, user, (ran, _) = shared(nbformat.v4.new_code_cell("print(1)"), nbformat.v4.new_code_cell("x = 1"))
    rooms = Rooms()
    notebooks = store(tmp_path, rooms)
    assert not await notebooks.write_outputs("nb.ipynb", ran, [], 1)  # no room: the caller saves the file
    rooms.open["nb.ipynb"] = room
    type_into(user, 0, "  # the user's")
    type_into(user, 1, "  # and here")
    stream = {"output_type": "stream", "name": "stdout", "text": "1\n"}
    assert await notebooks.write_outputs("nb.ipynb", ran, [stream], 3)
    exchange(room, user)
    cells = read_document(user)["cells"]
    assert [c["source"] for c in cells] == ["print(1)  # the user's", "x = 1  # and here"]
    assert cells[0]["outputs"] == [stream] and cells[0]["execution_count"] == 3
    del user.ycells[0]  # the user deletes the cell while it runs
    exchange(room, user)
    with pytest.raises(ToolError, match=r"no longer in nb\.ipynb"):
        await notebooks.write_outputs("nb.ipynb", ran, [stream], 4)
    assert read_document(room)["cells"] == read_document(user)["cells"] and len(read_document(room)["cells"]) == 1


def test_a_source_a_client_stored_as_a_plain_string_is_replaced_with_shared_text() -> None:
    room, user, (cell,) = shared(nbformat.v4.new_code_cell("x = 1"))
    user.ycells[0]["source"] = "x = 2"  # not the Text Lab makes: nothing to diff against
    exchange(room, user)
    apply_to_document(room, edited(room, Edit("replace", cell_id=cell, source="x = 3")))
    exchange(room, user)
    assert sources(user) == ["x = 3"] and sources(room) == ["x = 3"]
