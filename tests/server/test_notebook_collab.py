"""The notebook tools with jupyter-collaboration: while the user has the notebook open (a collaborative
room), the agent's edits and outputs go through the room's shared document, cell by cell, and the user's
concurrent typing is merged, never overwritten; without a room they go through the contents manager.

The user is a second collaborative client in the test (a jupyter_ydoc `YNotebook` synced over the
server's websocket, `kit/collab.py`). Only this module's servers load the collaboration extension:
pytest-jupyter points the config paths at temporary folders, so the extensions a server loads are the
ones its `jp_server_config` names.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest

pytest.importorskip("jupyter_server_ydoc", reason="the collab extra (jupyter-collaboration) is not installed")

from kit.collab import collaborator, converged
from kit.server import PrimeClient, part_text, tool_parts

from prime_jupyter.notebooks.collab import read_document
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

Json = Any
pytestmark = pytest.mark.prime_settings(tools=["notebook_read", "notebook_edit", "notebook_run"])


@pytest.fixture
def jp_server_config(jp_server_config: dict[str, Any], tmp_path: Path, jp_root_dir: Path) -> dict[str, Any]:
    """The server of `conftest.py` with the collaboration extension (its stores outside the root)."""
    extensions = {**jp_server_config["ServerApp"]["jpserver_extensions"]}
    extensions.update(jupyter_server_ydoc=True, jupyter_server_fileid=True)
    return {
        **jp_server_config,
        "ServerApp": {**jp_server_config["ServerApp"], "jpserver_extensions": extensions},
        "SQLiteYStore": {"db_path": str(tmp_path / "ystore.db")},
        "BaseFileIdManager": {"root_dir": str(jp_root_dir), "db_path": str(tmp_path / "fileid.db")},
    }


@pytest.fixture
def server_url(jp_http_port: int, jp_base_url: str) -> str:
    return f"http://127.0.0.1:{jp_http_port}{jp_base_url}"


def write_notebook(path: Path, cells: list[Any]) -> list[str]:
    nb = nbformat.v4.new_notebook(cells=cells)
    nbformat.write(nb, path)
    return [cell.id for cell in nb.cells]


async def room_document(serverapp: Any, path: str) -> Any:
    extension = serverapp.web_app.settings["jupyter_server_ydoc"]
    document = await extension.get_document(path=path, content_type="notebook", file_format="json", copy=False)
    assert document is not None, f"no room has {path} open"
    return document


async def saved(serverapp: Any, file: Path, holds: Callable[[Any], bool]) -> Any:
    """The notebook in `file` once the room has saved it holding what `holds` checks (looked at now and
    after each of the room's saves, which it announces as events)."""
    from jupyter_server_ydoc.utils import JUPYTER_COLLABORATION_EVENTS_URI

    done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def check() -> None:
        nb = nbformat.read(file, as_version=4)
        if not done.done() and holds(nb):
            done.set_result(nb)

    async def on_event(logger: Any, schema_id: str, data: dict[str, Any]) -> None:  # called with these names
        if data.get("action") == "save":
            check()

    serverapp.event_logger.add_listener(schema_id=JUPYTER_COLLABORATION_EVENTS_URI, listener=on_event)
    try:
        check()
        return await asyncio.wait_for(done, 30)
    finally:
        serverapp.event_logger.remove_listener(schema_id=JUPYTER_COLLABORATION_EVENTS_URI, listener=on_event)


def waiting_cell(flag: Path) -> str:
    """A cell that prints `first`, waits until `flag` exists (a minute at most), then prints `second`: the
    test decides when it finishes, so it can look at the notebook while the cell runs."""
    return (
        "import os, time\n"
        "print('first', flush=True)\n"
        "deadline = time.monotonic() + 60\n"
        f"while not os.path.exists({str(flag)!r}) and time.monotonic() < deadline:\n"
        "    time.sleep(0.02)\n"
        "print('second')"
    )


def enqueue(llm: ScriptedLLMServer, calls: list[tuple[str, dict[str, Any]]]) -> None:
    for name, arguments in calls:
        llm.enqueue(ScriptedTurn(blocks=[ToolCall(name=name, arguments=arguments)]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="done")]))


def insert(path: str, after: str, source: str) -> tuple[str, dict[str, Any]]:
    return "notebook_edit", {"path": path, "edits": [{"action": "insert", "after": after, "source": source}]}


class Typist:
    """The user typing into one cell of their document: a key each time the agent's change reaches them."""

    def __init__(self, document: Any, cell_id: str) -> None:
        self.document = document
        self.cell_id = cell_id
        self.typed = ""
        self._typing = False
        self._arrived = asyncio.Event()
        self._subscription = document.ycells.observe_deep(self._on_change)

    def _on_change(self, _events: object) -> None:
        if not self._typing:  # a change from the server, not our own key
            self._arrived.set()

    def key(self) -> None:
        (ycell,) = [c for c in self.document.ycells if c.get("id") == self.cell_id]
        text = ycell["source"]
        letter = "abcdefghijklmnopqrstuvwxyz"[len(self.typed) % 26]
        self._typing = True
        try:
            text.insert(len(text), letter)
        finally:
            self._typing = False
        self.typed += letter

    async def type_along(self) -> None:
        while True:
            await self._arrived.wait()
            self._arrived.clear()
            self.key()

    def stop(self) -> None:
        self.document.ycells.unobserve(self._subscription)


async def test_the_agent_inserts_and_runs_cells_while_the_user_types_in_another(
    prime: PrimeClient,
    llm: ScriptedLLMServer,
    jp_root_dir: Path,
    jp_serverapp: Any,
    jp_auth_header: dict[str, str],
    server_url: str,
) -> None:
    first, notes = write_notebook(
        jp_root_dir / "shared.ipynb",
        [nbformat.v4.new_code_cell("total = 1"), nbformat.v4.new_markdown_cell("# Notes\n")],
    )
    async with collaborator(server_url, jp_auth_header, "shared.ipynb") as user:
        server = await room_document(jp_serverapp, "shared.ipynb")
        typist = Typist(user, notes)
        typing = asyncio.create_task(typist.type_along())
        enqueue(
            llm,
            [
                ("notebook_read", {"path": "shared.ipynb"}),
                insert("shared.ipynb", first, "total += 40"),
                ("notebook_run", {"path": "shared.ipynb"}),
            ],
        )
        session_id = await prime.new_session()
        parts = tool_parts(await prime.turn(session_id, "add 40 and run it"))
        assert [p["state"] for p in parts] == ["output-available"] * 3, [part_text(p) for p in parts]
        assert "open in JupyterLab right now" in part_text(parts[0]) and parts[0]["output"]["details"]["live"]
        (added,) = [c["cellId"] for c in parts[1]["output"]["details"]["changes"]]
        enqueue(
            llm,
            [
                insert("shared.ipynb", added, "print(total + 1)"),
                ("notebook_run", {"path": "shared.ipynb"}),
            ],
        )
        parts = tool_parts(await prime.turn(session_id, "print the next one"))
        assert [p["state"] for p in parts] == ["output-available"] * 2, [part_text(p) for p in parts]
        typing.cancel()
        typist.key()  # and one key after the agent is done
        typist.stop()
        assert len(typist.typed) > 1, "the user typed while the agent worked"
        content = await converged(server, user, lambda nb: nb["cells"][-1]["source"] == "# Notes\n" + typist.typed)
    cells = content["cells"]
    assert [c["source"] for c in cells] == ["total = 1", "total += 40", "print(total + 1)", "# Notes\n" + typist.typed]
    assert [c["id"] for c in cells][::3] == [first, notes]
    assert cells[2]["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "42\n"}]
    assert [c.get("execution_count") for c in cells[:3]] == [3, 4, 5]  # the second run (the first ran two cells)
    assert all(c["metadata"]["prime"]["model"] == "scripted/m1" for c in cells[1:3])
    assert "42" in part_text(parts[1])
    nbformat.validate(nbformat.from_dict(content))
    # the room saves the file as it does for the user's typing: outputs, provenance and the typing in it
    final = [c["source"] for c in cells]
    on_disk = await saved(jp_serverapp, jp_root_dir / "shared.ipynb", lambda nb: [c.source for c in nb.cells] == final)
    assert on_disk.cells[2].outputs[0]["text"] == "42\n"
    assert on_disk.cells[2].metadata["prime"]["model"] == "scripted/m1"


async def test_a_replace_of_a_cell_the_user_changed_in_the_room_is_refused(
    prime: PrimeClient,
    llm: ScriptedLLMServer,
    jp_root_dir: Path,
    jp_serverapp: Any,
    jp_auth_header: dict[str, str],
    server_url: str,
) -> None:
    (cell,) = write_notebook(jp_root_dir / "tuned.ipynb", [nbformat.v4.new_code_cell("threshold = 0.5")])
    async with collaborator(server_url, jp_auth_header, "tuned.ipynb") as user:
        server = await room_document(jp_serverapp, "tuned.ipynb")
        session_id = await prime.new_session()
        enqueue(llm, [("notebook_read", {"path": "tuned.ipynb"})])
        await prime.turn(session_id, "read it")
        text = user.ycells[0]["source"]
        text.insert(len(text), "  # tuned by hand")  # the user, after the agent read the cell
        await converged(server, user, lambda nb: "tuned" in nb["cells"][0]["source"])
        edit = {"action": "replace", "cell_id": cell, "source": "threshold = 0.1"}
        enqueue(llm, [("notebook_edit", {"path": "tuned.ipynb", "edits": [edit]})])
        (part,) = tool_parts(await prime.turn(session_id, "lower it"))
        assert part["state"] == "output-error" and "threshold = 0.5  # tuned by hand" in part_text(part), part
        assert str(server.ycells[0]["source"]) == "threshold = 0.5  # tuned by hand"
        # the refusal showed the model the current source: a deliberate retry goes through, in the room
        enqueue(llm, [("notebook_edit", {"path": "tuned.ipynb", "edits": [edit]})])
        (part,) = tool_parts(await prime.turn(session_id, "lower it anyway"))
        assert part["state"] == "output-available", part_text(part)
        content = await converged(server, user, lambda nb: nb["cells"][0]["source"] == "threshold = 0.1")
    assert [c["id"] for c in content["cells"]] == [cell]


async def test_a_notebook_nobody_has_open_is_edited_through_the_contents_manager(
    prime: PrimeClient, llm: ScriptedLLMServer, jp_root_dir: Path, jp_serverapp: Any
) -> None:
    path = jp_root_dir / "closed.ipynb"
    (cell,) = write_notebook(path, [nbformat.v4.new_code_cell("x = 1")])
    enqueue(llm, [insert("closed.ipynb", cell, "y = 2")])
    (part,) = tool_parts(await prime.turn(await prime.new_session(), "add a cell"))
    assert part["state"] == "output-available", part_text(part)
    assert [c.source for c in nbformat.read(path, as_version=4).cells] == ["x = 1", "y = 2"]
    # looking for its room neither opened one nor gave the file an id (the file id store is the server's)
    assert jp_serverapp.web_app.settings["file_id_manager"].get_id("closed.ipynb") is None
    assert not jp_serverapp.web_app.settings["jupyter_server_ydoc"].ywebsocket_server.rooms


async def test_the_user_sees_a_running_cell_running_and_its_outputs_as_they_arrive(
    prime: PrimeClient,
    llm: ScriptedLLMServer,
    jp_root_dir: Path,
    jp_serverapp: Any,
    jp_auth_header: dict[str, str],
    server_url: str,
) -> None:
    flag = jp_root_dir / "go-on"
    code = waiting_cell(flag)
    (cell,) = write_notebook(jp_root_dir / "slow.ipynb", [nbformat.v4.new_code_cell(code)])
    async with collaborator(server_url, jp_auth_header, "slow.ipynb") as user:
        server = await room_document(jp_serverapp, "slow.ipynb")
        enqueue(llm, [("notebook_run", {"path": "slow.ipynb"})])
        turn = asyncio.create_task(prime.turn(await prime.new_session(), "run it"))
        try:
            # the cell waits for the flag, which the test sets only once the user saw its first line
            seen = await converged(server, user, lambda nb: bool(nb["cells"][0]["outputs"]))
            running = user.ycells[0].get("execution_state")  # Lab shows the cell as running: `[*]`
            flag.touch()
            frames = await turn
        finally:
            flag.touch()
        assert seen["cells"][0]["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "first\n"}]
        assert seen["cells"][0]["execution_count"] is None and running == "running"
        (part,) = tool_parts(frames)
        assert part["state"] == "output-available", part_text(part)

        def finished(nb: dict[str, Any]) -> bool:
            return bool(nb["cells"][0]["execution_count"] == 1 and user.ycells[0].get("execution_state") == "idle")

        done = await converged(server, user, finished)
    assert done["cells"][0]["id"] == cell
    assert done["cells"][0]["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "first\nsecond\n"}]


async def test_a_notebook_renamed_while_its_cell_runs_gets_nothing_written_anywhere(
    prime: PrimeClient,
    llm: ScriptedLLMServer,
    jp_root_dir: Path,
    jp_serverapp: Any,
    jp_auth_header: dict[str, str],
    server_url: str,
) -> None:
    flag = jp_root_dir / "go-on"
    code = waiting_cell(flag)
    write_notebook(jp_root_dir / "moving.ipynb", [nbformat.v4.new_code_cell(code)])
    async with collaborator(server_url, jp_auth_header, "moving.ipynb") as user:
        server = await room_document(jp_serverapp, "moving.ipynb")
        enqueue(llm, [("notebook_run", {"path": "moving.ipynb"})])
        turn = asyncio.create_task(prime.turn(await prime.new_session(), "run it"))
        try:
            await converged(server, user, lambda nb: bool(nb["cells"][0]["outputs"]))
            renamed = await prime.status("PATCH", "../../api/contents/moving.ipynb", b'{"path": "moved.ipynb"}')
            assert renamed[0] == 200, renamed
            flag.touch()
            frames = await turn
        finally:
            flag.touch()
    (part,) = tool_parts(frames)
    assert part["output"]["details"]["isError"] and "deleted or renamed" in part_text(part), part_text(part)
    assert not (jp_root_dir / "moving.ipynb").exists()
    # the room follows the file, and its cell keeps what came before the rename: the run wrote nothing after
    (cell,) = read_document(server)["cells"]
    assert cell["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "first\n"}]


async def test_a_file_changed_on_disk_after_the_read_reaches_the_room_and_refuses_the_stale_replace(
    prime: PrimeClient,
    llm: ScriptedLLMServer,
    jp_root_dir: Path,
    jp_serverapp: Any,
    jp_auth_header: dict[str, str],
    server_url: str,
) -> None:
    path = jp_root_dir / "disk.ipynb"
    (cell,) = write_notebook(path, [nbformat.v4.new_code_cell("rate = 0.1")])
    async with collaborator(server_url, jp_auth_header, "disk.ipynb") as user:
        server = await room_document(jp_serverapp, "disk.ipynb")
        session_id = await prime.new_session()
        enqueue(llm, [("notebook_read", {"path": "disk.ipynb"})])
        await prime.turn(session_id, "read it")
        nb = nbformat.read(path, as_version=4)
        nb.cells[0].source = "rate = 0.2  # from another program"
        nbformat.write(nb, path)  # the room notices the file changed and loads it
        await converged(server, user, lambda content: "another program" in content["cells"][0]["source"])
        edit = {"action": "replace", "cell_id": cell, "source": "rate = 0.3"}
        enqueue(llm, [("notebook_edit", {"path": "disk.ipynb", "edits": [edit]})])
        (part,) = tool_parts(await prime.turn(session_id, "raise it"))
        assert part["state"] == "output-error" and "from another program" in part_text(part), part_text(part)
        assert str(server.ycells[0]["source"]) == "rate = 0.2  # from another program"
    assert nbformat.read(path, as_version=4).cells[0].source == "rate = 0.2  # from another program"
