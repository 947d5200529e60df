"""A realistic notebook executed headless by nbclient: load a CSV, clean it, ask `%%prime` for a fitted
line, use the agent's variables after."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_kit import kernel_env

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = pytest.mark.e2e  # the product runs in a kernel process the test drives

FIT = """\
xs, ys = [r["x"] for r in clean], [r["y"] for r in clean]
n, mx, my = len(xs), sum(xs) / len(xs), sum(ys) / len(ys)
slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
intercept = my - slope * mx
from IPython.display import HTML, display
display(HTML(f"<table><tr><td>slope</td><td>{slope:.2f}</td></tr></table>"))
print(f"y = {slope:.2f} x + {intercept:.2f}")"""


def test_a_notebook_runs_end_to_end(
    llm: ScriptedLLMServer, agent_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in kernel_env(agent_home).items():
        monkeypatch.setenv(name, value)
    (tmp_path / "data.csv").write_text("x,y\n1,2.1\n2,3.9\nbad,\n3,6.0\n4,8.1\n")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext prime_jupyter"),
        nbformat.v4.new_code_cell("import csv\nrows = list(csv.DictReader(open('data.csv')))\nlen(rows)"),
        nbformat.v4.new_code_cell(
            "clean = [{'x': float(r['x']), 'y': float(r['y'])} for r in rows if r['x'].isdigit() and r['y']]"
        ),
        nbformat.v4.new_code_cell("%%prime\nFit a line to `clean` ({clean}); keep slope and intercept."),
        nbformat.v4.new_code_cell("print(round(slope, 1), round(intercept, 1))"),
    ]
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="Least squares."), ToolCall(name="ipython", arguments={"code": FIT})]),
        ScriptedTurn(blocks=[Text(text="The line is **y = 2.01 x + 0.00**.", chunks=4)]),
    )
    resources = {"metadata": {"path": str(tmp_path)}}
    client = NotebookClient(notebook, timeout=120, kernel_name="python3", resources=resources)
    client.execute()
    nbformat.validate(notebook)
    prime_outputs = notebook.cells[3].outputs
    markdown = [o["data"]["text/markdown"] for o in prime_outputs if "text/markdown" in o.get("data", {})]
    assert markdown == ["Least squares.", "The line is **y = 2.01 x + 0.00**."]
    assert any("<table>" in o.get("data", {}).get("text/html", "") for o in prime_outputs)
    assert any(o.get("text", "").startswith("y = 2.01 x + 0.00") for o in prime_outputs if o["output_type"] == "stream")
    assert notebook.cells[4].outputs[0]["text"] == "2.0 0.0\n"
    assert "'x': 1.0" in str(llm.requests[0].body)
