"""`export("ipynb")` through the seam, in process and over HTTP: a session whose `ipython` tool drew an image
and raised an error becomes a notebook `nbformat.validate` accepts, with provenance on every cell."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import nbformat
import pytest
import pytest_asyncio
from kit.server import own_jupyter

from prime_jupyter.connection import LocalTarget, ServerTarget, open_connection
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.jupyter_process import JupyterProcess, write_agent_dir

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
DRAW = f"""\
import base64
from IPython.display import Image, display
print('drawing')
display(Image(data=base64.b64decode('{PNG}')))"""


def _with_ipython(home: Path, llm: ScriptedLLMServer) -> None:
    write_agent_dir(home, llm)
    (home / "settings.json").write_text(json.dumps({"tools": ["ipython"], "retry": {"enabled": False}}))


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    """A server of this module's own: its sessions have the ipython tool, so its kernels must end with the
    module, not outlive the kernel tests' check that no kernel is left behind."""
    outside = ("--PrimeApp.allow_outside_root=True",)  # each test's work dir is its own, outside this root
    yield from own_jupyter(tmp_path_factory, "jupyter-ipynb", *outside)


@pytest_asyncio.fixture(params=["in-process", "http"])
async def connection(
    request: pytest.FixtureRequest, tmp_path: Path, llm: ScriptedLLMServer
) -> AsyncIterator[AgentConnection]:
    work = tmp_path / "work"
    work.mkdir()
    target: LocalTarget | ServerTarget
    if request.param == "http":
        server: JupyterProcess = request.getfixturevalue("jupyter")
        _with_ipython(server.agent_dir, llm)
        endpoint = server.endpoint
        target = ServerTarget(
            cwd=work, url=endpoint.url, token=endpoint.token, new_session_cwd=str(work), model="scripted/m1"
        )
    else:
        _with_ipython(tmp_path / "agent", llm)
        target = LocalTarget(cwd=work, model="scripted/m1", agent_dir=tmp_path / "agent")
    conn = await open_connection(target)
    yield conn
    await conn.dispose()


@pytest.mark.asyncio
async def test_a_session_exports_to_a_valid_notebook_with_provenance(
    connection: AgentConnection, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="Drawing first."), ToolCall(name="ipython", arguments={"code": DRAW})]),
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "1 / 0"})]),
        ScriptedTurn(blocks=[Text(text="The image is drawn; the division failed.")]),
    )
    await connection.prompt("draw a pixel, then divide by zero")
    await connection.wait_for_idle()
    exported = await connection.export("ipynb", str(tmp_path / "out" / "session.ipynb"))
    assert exported.format == "ipynb" and exported.path == str(tmp_path / "out" / "session.ipynb")

    notebook = nbformat.read(exported.path, as_version=4)
    nbformat.validate(notebook)
    assert [cell.cell_type for cell in notebook.cells] == ["markdown", "markdown", "code", "code", "markdown"]
    prompt, text, draw, divide, answer = notebook.cells
    assert "draw a pixel" in prompt.source and text.source == "Drawing first." and draw.source == DRAW
    assert [o.output_type for o in draw.outputs] == ["stream", "display_data"] and "image/png" in draw.outputs[1].data
    assert divide.outputs[-1].output_type == "error" and divide.outputs[-1].ename == "ZeroDivisionError"
    assert answer.source == "The image is drawn; the division failed."

    state, found = await connection.get_state(), await connection.get_messages()
    assert {cell.metadata["prime"]["session"] for cell in notebook.cells} == {state.session_id}
    assert {cell.metadata["prime"]["entry"] for cell in notebook.cells} <= set(found.entry_ids)
    assert draw.metadata["prime"]["model"] == "scripted/m1" and draw.metadata["prime"]["tool"] == "ipython"


@pytest.mark.asyncio
async def test_without_a_path_the_notebook_goes_to_the_sessions_working_folder(
    connection: AgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="hi")]))
    await connection.prompt("hello")
    await connection.wait_for_idle()
    exported = await connection.export("ipynb")
    state = await connection.get_state()
    transcript = Path(str(state.session_file))
    assert exported.path == str(Path(state.cwd) / f"prime-{transcript.stem}.ipynb")
    nbformat.validate(nbformat.read(exported.path, as_version=4))
