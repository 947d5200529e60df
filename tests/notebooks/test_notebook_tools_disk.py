"""The notebook tools on notebook files (the terminal app's and `-p`'s store), with real kernels.

Every edit is checked against the file itself, as Jupyter would read it (`nbformat.read` + validate).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
import pytest_asyncio

from prime_jupyter.agent.tool import AgentToolResult, AnyTool
from prime_jupyter.ai.abort import AbortController
from prime_jupyter.ai.types import TextContent
from prime_jupyter.errors import ToolError
from prime_jupyter.kernel.launchers import shared_local_launcher
from prime_jupyter.notebooks.kernels import LocalNotebookKernels
from prime_jupyter.notebooks.render import MAX_READ_CHARS
from prime_jupyter.notebooks.store import DiskNotebookStore
from prime_jupyter.notebooks.workspace import NotebookWorkspace
from prime_jupyter.tools.edit import make_edit_tool
from prime_jupyter.tools.notebook_edit import make_notebook_edit_tool
from prime_jupyter.tools.notebook_read import make_notebook_read_tool
from prime_jupyter.tools.notebook_run import make_notebook_run_tool
from prime_jupyter.tools.write import make_write_tool


class Tools:
    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.workspace = NotebookWorkspace(
            DiskNotebookStore(str(cwd)),
            LocalNotebookKernels(shared_local_launcher()),
            timeout_s=60,
            provenance=lambda: {"session": "s-1", "entry": "e-1", "model": "scripted/m"},
        )
        self.read_tool = make_notebook_read_tool(self.workspace, accepts_images=True)
        self.edit_tool = make_notebook_edit_tool(self.workspace)
        self.run_tool = make_notebook_run_tool(self.workspace, accepts_images=True)

    async def call(self, tool: AnyTool, **params: Any) -> AgentToolResult:
        validated = tool.parameters.model_validate(params)
        return await tool.execute("call-1", validated, AbortController().signal, lambda _: None)

    async def read(self, path: str = "nb.ipynb", **params: Any) -> str:
        return text(await self.call(self.read_tool, path=path, **params))

    async def edit(self, *edits: dict[str, Any], path: str = "nb.ipynb") -> AgentToolResult:
        return await self.call(self.edit_tool, path=path, edits=list(edits))

    async def run(self, path: str = "nb.ipynb", **params: Any) -> AgentToolResult:
        return await self.call(self.run_tool, path=path, **params)

    def notebook(self, path: str = "nb.ipynb") -> Any:
        nb = nbformat.read(self.cwd / path, as_version=4)
        nbformat.validate(nb)
        return nb


def text(result: AgentToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


def write_notebook(path: Path, sources: list[str], *, minor: int = 5) -> None:
    cells = [nbformat.v4.new_code_cell(source) for source in sources]
    nb = nbformat.v4.new_notebook(cells=cells)
    if minor < 5:
        nb.nbformat_minor = minor
        for cell in nb.cells:
            del cell["id"]
    path.write_text(json.dumps(nb))


def ids(nb: Any) -> list[str]:
    return [cell.id for cell in nb.cells]


@pytest_asyncio.fixture
async def tools(tmp_path: Path) -> AsyncIterator[Tools]:
    made = Tools(tmp_path)
    yield made
    await made.workspace.dispose()


@pytest.mark.asyncio
async def test_inserts_into_a_missing_path_create_the_notebook_with_provenance(tools: Tools) -> None:
    result = await tools.edit(
        {"action": "insert", "after": None, "source": "x = 1"},
        {"action": "insert", "after": None, "cell_type": "markdown", "source": "# Title"},
    )
    nb = tools.notebook()
    assert [cell.source for cell in nb.cells] == ["# Title", "x = 1"]
    assert nb.cells[0].metadata["prime"] == {"session": "s-1", "entry": "e-1", "model": "scripted/m"}
    details = result.details
    assert isinstance(details, dict) and details["created"] is True
    made = [change["cellId"] for change in details["changes"]]  # type: ignore[index, union-attr]
    assert sorted(made) == sorted(ids(nb))
    assert all(cell_id in text(result) for cell_id in made)


@pytest.mark.asyncio
async def test_insert_after_a_cell_made_in_the_same_batch(tools: Tools) -> None:
    first = await tools.edit({"action": "insert", "source": "a = 1"})
    a_id = first.details["changes"][0]["cellId"]  # type: ignore[index, call-overload]
    await tools.edit({"action": "insert", "after": a_id, "source": "b = 2"})
    assert [cell.source for cell in tools.notebook().cells] == ["a = 1", "b = 2"]


@pytest.mark.asyncio
async def test_read_then_replace_delete_and_move(tools: Tools) -> None:
    write_notebook(tools.cwd / "nb.ipynb", ["a = 1", "b = 2", "c = 3"])
    a, b, c = ids(tools.notebook())
    shown = await tools.read()
    assert all(f"cell {cell_id}" in shown for cell_id in (a, b, c)) and "b = 2" in shown
    await tools.edit(
        {"action": "replace", "cell_id": b, "source": "b = 20"},
        {"action": "move", "cell_id": c, "after": None},
        {"action": "delete", "cell_id": a},
    )
    nb = tools.notebook()
    assert [(cell.id, cell.source) for cell in nb.cells] == [(c, "c = 3"), (b, "b = 20")]
    assert nb.cells[1].metadata["prime"]["session"] == "s-1"


@pytest.mark.asyncio
async def test_an_unread_cell_is_refused_with_its_source_and_a_retry_goes_through(tools: Tools) -> None:
    write_notebook(tools.cwd / "nb.ipynb", ["secret = 'keep me'"])
    (cell_id,) = ids(tools.notebook())
    before = (tools.cwd / "nb.ipynb").read_bytes()
    with pytest.raises(ToolError, match="not read") as refused:
        await tools.edit({"action": "replace", "cell_id": cell_id, "source": "secret = None"})
    assert "secret = 'keep me'" in str(refused.value)
    assert (tools.cwd / "nb.ipynb").read_bytes() == before
    await tools.edit({"action": "replace", "cell_id": cell_id, "source": "secret = None"})
    assert tools.notebook().cells[0].source == "secret = None"


@pytest.mark.asyncio
async def test_a_cell_changed_on_disk_after_the_read_is_never_overwritten(tools: Tools) -> None:
    path = tools.cwd / "nb.ipynb"
    write_notebook(path, ["df = load()", "plot(df)"])
    first, second = ids(tools.notebook())
    await tools.read()
    nb = tools.notebook()
    nb.cells[0].source = "df = load('users typed this')"
    nbformat.write(nb, path)
    typed = path.read_bytes()
    with pytest.raises(ToolError, match="changed since you last read it") as refused:
        await tools.edit({"action": "delete", "cell_id": first})
    assert "users typed this" in str(refused.value)
    assert path.read_bytes() == typed
    # an edit of another cell goes through and keeps the user's change
    await tools.edit({"action": "replace", "cell_id": second, "source": "plot(df, kind='bar')"})
    assert [cell.source for cell in tools.notebook().cells] == ["df = load('users typed this')", "plot(df, kind='bar')"]


@pytest.mark.asyncio
async def test_a_failing_edit_in_a_batch_applies_none(tools: Tools) -> None:
    write_notebook(tools.cwd / "nb.ipynb", ["a = 1"])
    await tools.read()
    before = (tools.cwd / "nb.ipynb").read_bytes()
    with pytest.raises(ToolError, match="edit 2 of 2") as refused:
        await tools.edit({"action": "insert", "source": "new"}, {"action": "delete", "cell_id": "nope"})
    assert ids(tools.notebook())[0] in str(refused.value)  # the unknown id's error lists the notebook's ids
    assert (tools.cwd / "nb.ipynb").read_bytes() == before


@pytest.mark.asyncio
async def test_a_notebook_without_ids_gets_the_ids_it_was_read_with(tools: Tools) -> None:
    write_notebook(tools.cwd / "old.ipynb", ["x = 1", "y = 2"], minor=4)
    shown = await tools.read("old.ipynb")
    await tools.edit({"action": "insert", "source": "z = 3"}, path="old.ipynb")
    nb = tools.notebook("old.ipynb")
    assert nb.nbformat_minor >= 5
    assert all(f"cell {cell.id}" in shown for cell in nb.cells[1:])


@pytest.mark.asyncio
async def test_bad_input_is_a_clear_error_and_the_file_untouched(tools: Tools) -> None:
    (tools.cwd / "broken.ipynb").write_text('{"cells": [')
    with pytest.raises(ToolError, match=r"broken\.ipynb is not a notebook"):
        await tools.read("broken.ipynb")
    with pytest.raises(ToolError, match=r"broken\.ipynb is not a notebook"):
        await tools.edit({"action": "insert", "source": "x"}, path="broken.ipynb")
    assert (tools.cwd / "broken.ipynb").read_text() == '{"cells": ['
    with pytest.raises(ToolError, match="only insert edits"):
        await tools.edit({"action": "delete", "cell_id": "x"}, path="missing.ipynb")
    assert not (tools.cwd / "missing.ipynb").exists()
    with pytest.raises(ToolError, match=r"end in \.ipynb"):
        await tools.read("notes.txt")


@pytest.mark.asyncio
async def test_write_and_edit_refuse_notebooks(tmp_path: Path) -> None:
    write_notebook(tmp_path / "nb.ipynb", ["a = 1"])
    before = (tmp_path / "nb.ipynb").read_bytes()
    for tool, params in (
        (make_write_tool(str(tmp_path)), {"path": "nb.ipynb", "content": "{}"}),
        (make_edit_tool(str(tmp_path)), {"path": "nb.ipynb", "edits": [{"oldText": "a = 1", "newText": "a = 2"}]}),
    ):
        with pytest.raises(ToolError, match="notebook_edit"):
            await tool.execute("c", tool.parameters.model_validate(params), AbortController().signal, lambda _: None)
    assert (tmp_path / "nb.ipynb").read_bytes() == before


@pytest.mark.asyncio
async def test_a_500_cell_read_stays_within_the_budget(tools: Tools) -> None:
    write_notebook(tools.cwd / "big.ipynb", [f"value_{i} = {i} * 2  # " + "x" * 200 for i in range(500)])
    shown = await tools.read("big.ipynb")
    assert len(shown) <= MAX_READ_CHARS
    assert "more cells not shown" in shown
    last = ids(tools.notebook("big.ipynb"))[-1]
    assert last in shown  # listed by id, so the model can ask for it
    assert "value_499" in await tools.read("big.ipynb", cell_ids=[last])


@pytest.mark.asyncio
async def test_run_saves_outputs_in_the_file_and_stops_at_the_first_error(tools: Tools) -> None:
    write_notebook(tools.cwd / "nb.ipynb", ["x = 6 * 7\nprint('x is', x)", "x", "1 / 0", "print('never')"])
    result = await tools.run()
    nb = tools.notebook()
    assert nb.cells[0].outputs[0]["text"] == "x is 42\n"
    assert nb.cells[1].outputs[0]["data"]["text/plain"] == "42"
    assert nb.cells[1].execution_count == 2
    assert nb.cells[2].outputs[0]["ename"] == "ZeroDivisionError"
    assert nb.cells[3].outputs == [] and nb.cells[3].execution_count is None
    assert result.is_error
    shown = text(result)
    assert "x is 42" in shown and "ZeroDivisionError" in shown and f"not run: {nb.cells[3].id}" in shown
    # the kernel keeps the notebook's state: a later run of one cell sees `x`
    await tools.run(cell_ids=[nb.cells[1].id])
    assert tools.notebook().cells[1].execution_count == 4


@pytest.mark.asyncio
async def test_a_kernel_that_dies_keeps_the_outputs_so_far_and_puts_the_error_in_the_cell(tools: Tools) -> None:
    write_notebook(tools.cwd / "nb.ipynb", ["print('before')", "import os\nprint('dying', flush=True)\nos._exit(1)"])
    result = await tools.run()
    nb = tools.notebook()
    assert nb.cells[0].outputs[0]["text"] == "before\n"
    assert nb.cells[1].outputs[-1]["ename"] == "DeadKernelError"
    assert result.is_error and "died" in text(result)


@pytest.mark.asyncio
async def test_a_notebook_deleted_during_its_run_ends_the_run_and_nothing_is_written(tools: Tools) -> None:
    write_notebook(tools.cwd / "nb.ipynb", ["import os\nos.remove('nb.ipynb')", "print('never')"])
    result = await tools.run()
    assert result.is_error
    assert "deleted or renamed during the run" in text(result) and "never" not in text(result)
    assert list(tools.cwd.iterdir()) == []  # not written back, nor anywhere else
