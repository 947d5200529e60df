"""`%prime export ipynb` in a kernel: a session with text, code, an image output and an error, with provenance."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from notebook_kit import Kernel

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = pytest.mark.e2e  # the product runs in a kernel process the test drives

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
DRAW = f"""\
import base64
from IPython.display import Image, display
print('drawing')
display(Image(data=base64.b64decode('{PNG}')))"""


def test_a_session_exports_to_a_valid_notebook_with_provenance(
    kernel: Kernel, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="Drawing first."), ToolCall(name="ipython", arguments={"code": DRAW})]),
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "1 / 0"})]),
        ScriptedTurn(blocks=[Text(text="The image is drawn; the division failed.")]),
    )
    kernel.run("%prime new")
    kernel.run("%%prime\ndraw a pixel, then divide by zero")
    target = tmp_path / "session.ipynb"
    assert str(target) in kernel.run(f"%prime export ipynb {target}").text()

    notebook = nbformat.read(target, as_version=4)
    nbformat.validate(notebook)
    kinds = [(cell.cell_type, cell.metadata["prime"]["role"]) for cell in notebook.cells]
    assert kinds == [("markdown", "user"), ("markdown", "assistant"), ("code", "assistant"), ("code", "assistant"),
                     ("markdown", "assistant")]  # fmt: skip
    prompt, text, draw, divide, answer = notebook.cells
    assert "draw a pixel" in prompt.source and text.source == "Drawing first." and draw.source == DRAW
    assert [o.output_type for o in draw.outputs] == ["stream", "display_data"] and "image/png" in draw.outputs[1].data
    assert divide.outputs[0].output_type == "error" and divide.outputs[0].ename == "ZeroDivisionError"
    assert answer.source == "The image is drawn; the division failed."
    provenance = draw.metadata["prime"]
    assert provenance["model"] == "scripted/m1" and provenance["tool"] == "ipython" and provenance["entry"]
    assert {cell.metadata["prime"]["session"] for cell in notebook.cells} == {notebook.metadata["prime"]["session"]}
