"""The notebook tools in a real Jupyter server: through its contents manager, inside its root, run in the
notebook's own Jupyter session (the kernel Lab shows for it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from kit.server import PrimeClient, part_text
from kit.server import tool_parts as tool_parts_of

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

Json = Any
pytestmark = pytest.mark.prime_settings(tools=["notebook_read", "notebook_edit", "notebook_run"])


def write_notebook(path: Path, sources: list[str]) -> list[str]:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    nbformat.write(nb, path)
    return [cell.id for cell in nb.cells]


def read_notebook(path: Path) -> Any:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    return nb


async def tool_parts(prime: PrimeClient, llm: ScriptedLLMServer, calls: list[tuple[str, dict[str, Any]]]) -> list[Json]:
    """One turn in which the model makes `calls`, one per step; the tool parts of the reply."""
    session_id = await prime.new_session()
    for name, arguments in calls:
        llm.enqueue(ScriptedTurn(blocks=[ToolCall(name=name, arguments=arguments)]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="done")]))
    return tool_parts_of(await prime.turn(session_id, "work on the notebook"))


async def test_read_edit_and_run_through_the_server(
    prime: PrimeClient, llm: ScriptedLLMServer, jp_root_dir: Path
) -> None:
    first, second = write_notebook(jp_root_dir / "analysis.ipynb", ["x = 20", "print(x + 1)"])
    parts = await tool_parts(
        prime,
        llm,
        [
            ("notebook_read", {"path": "analysis.ipynb"}),
            (
                "notebook_edit",
                {
                    "path": "analysis.ipynb",
                    "edits": [
                        {"action": "replace", "cell_id": second, "source": "print(x * 2)"},
                        {"action": "insert", "after": second, "source": "x / 4"},
                    ],
                },
            ),
            ("notebook_run", {"path": "analysis.ipynb"}),
        ],
    )
    assert [p["state"] for p in parts] == ["output-available"] * 3, [part_text(p) for p in parts]
    assert f"cell {first}" in part_text(parts[0]) and "print(x + 1)" in part_text(parts[0])
    assert "open in JupyterLab" not in part_text(parts[0]) and not parts[0]["output"]["details"]["live"]
    nb = read_notebook(jp_root_dir / "analysis.ipynb")
    assert [cell.source for cell in nb.cells] == ["x = 20", "print(x * 2)", "x / 4"]
    assert nb.cells[1].outputs[0]["text"] == "40\n"
    assert nb.cells[2].outputs[0]["data"]["text/plain"] == "5.0"
    provenance = nb.cells[1].metadata["prime"]
    assert provenance["model"] == "scripted/m1" and provenance["session"] and provenance["entry"]
    assert "40" in part_text(parts[2]) and "5.0" in part_text(parts[2])
    # the run went to a Jupyter session of the notebook's own, which Lab shows when it opens the notebook
    sessions = (await prime.status("GET", "../../api/sessions"))[1]
    mine = [s for s in sessions if s["path"] == "analysis.ipynb"]
    assert len(mine) == 1 and mine[0]["kernel"]["id"] == parts[2]["output"]["details"]["kernelId"]


async def test_the_run_uses_the_kernel_of_the_notebooks_existing_session(
    prime: PrimeClient, llm: ScriptedLLMServer, jp_root_dir: Path
) -> None:
    write_notebook(jp_root_dir / "open.ipynb", ["import os\nprint(os.getpid())"])
    body = json.dumps({"path": "open.ipynb", "type": "notebook", "name": "open.ipynb", "kernel": {"name": "python3"}})
    code, opened = await prime.status("POST", "../../api/sessions", body.encode())
    assert code == 201, opened
    parts = await tool_parts(prime, llm, [("notebook_run", {"path": "open.ipynb"})])
    assert parts[0]["output"]["details"]["kernelId"] == opened["kernel"]["id"]
    sessions = (await prime.status("GET", "../../api/sessions"))[1]
    assert [s["kernel"]["id"] for s in sessions if s["path"] == "open.ipynb"] == [opened["kernel"]["id"]]


async def test_a_stale_edit_is_refused_with_the_current_source(
    prime: PrimeClient, llm: ScriptedLLMServer, jp_root_dir: Path
) -> None:
    path = jp_root_dir / "nb.ipynb"
    (cell,) = write_notebook(path, ["threshold = 0.5"])
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="notebook_read", arguments={"path": "nb.ipynb"})]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="read")]))
    await prime.turn(session_id, "read it")
    # the user changes the cell in Lab and saves (through the contents API, as Lab does)
    nb = read_notebook(path)
    nb.cells[0].source = "threshold = 0.9  # tuned by hand"
    model = json.dumps({"type": "notebook", "format": "json", "content": nb}).encode()
    assert (await prime.status("PUT", "../../api/contents/nb.ipynb", model))[0] == 200
    saved = path.read_bytes()
    edit = {"path": "nb.ipynb", "edits": [{"action": "replace", "cell_id": cell, "source": "threshold = 0.1"}]}
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="notebook_edit", arguments=edit)]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="refused")]))
    frames = await prime.turn(session_id, "lower it")
    part = [f["part"] for f in frames if f["type"] == "tool"][-1]
    assert part["state"] == "output-error" and "tuned by hand" in part_text(part), part
    assert path.read_bytes() == saved


async def test_paths_outside_the_root_are_refused(
    prime: PrimeClient, llm: ScriptedLLMServer, jp_root_dir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    write_notebook(outside / "theirs.ipynb", ["private = 1"])
    (jp_root_dir / "link.ipynb").symlink_to(outside / "theirs.ipynb")
    parts = await tool_parts(
        prime,
        llm,
        [
            ("notebook_read", {"path": str(outside / "theirs.ipynb")}),
            ("notebook_read", {"path": "link.ipynb"}),
            ("notebook_edit", {"path": "../made.ipynb", "edits": [{"action": "insert", "source": "x"}]}),
        ],
    )
    assert [p["state"] for p in parts] == ["output-error"] * 3
    assert all("outside the Jupyter server's root" in part_text(p) for p in parts)
    assert not (jp_root_dir.parent / "made.ipynb").exists()
    assert "private" not in json.dumps(parts)


@pytest.mark.prime_settings(tools=["ipython", "notebook_run"])
async def test_a_session_tied_to_a_notebook_runs_its_code_in_the_notebooks_kernel(
    prime: PrimeClient, llm: ScriptedLLMServer, jp_root_dir: Path
) -> None:
    write_notebook(jp_root_dir / "data.ipynb", ["import pandas as pd\ndf = pd.DataFrame({'a': range(7)})"])
    session_id = await prime.new_session(notebookPath="data.ipynb")
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="notebook_run", arguments={"path": "data.ipynb"})]))
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "print(df.shape)"})]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="seven rows")]))
    frames = await prime.turn(session_id, "how many rows has df?")
    parts = [f["part"] for f in frames if f["type"] == "tool" and f["part"]["state"] == "output-available"]
    ipython = [p for p in parts if p["type"] == "tool-IPython"][-1]
    assert part_text(ipython) == "(7, 1)"
    sessions = (await prime.status("GET", "../../api/sessions"))[1]
    (notebook_session,) = [s for s in sessions if s["path"] == "data.ipynb"]
    assert ipython["output"]["details"]["kernelId"] == notebook_session["kernel"]["id"]
    # the model was told where its code runs
    assert "notebook data.ipynb" in json.dumps(llm.requests[0].body["system"])
    # the kernel stays the notebook's: deleting the agent's session leaves it running
    await prime.call("DELETE", "chat/sessions", {"sessionId": session_id})
    kernels = (await prime.status("GET", "../../api/kernels"))[1]
    assert [k["id"] for k in kernels] == [notebook_session["kernel"]["id"]]


async def test_a_tie_to_a_path_outside_the_root_is_refused_before_any_session_is_made(
    prime: PrimeClient, tmp_path: Path
) -> None:
    before = (await prime.get("chat/sessions"))["sessions"]
    body = json.dumps({"notebookPath": "../elsewhere.ipynb"}).encode()
    code, reply = await prime.status("POST", "chat/new", body)
    assert code == 400 and "outside the Jupyter server's root" in json.dumps(reply), reply
    assert (await prime.get("chat/sessions"))["sessions"] == before
