"""A realistic notebook executed headless by nbclient: load a CSV with pandas, clean it, ask `%%prime` for a
plot and a fitted line, use the agent's variables after."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from notebook_kit import kernel_env

from prime_jupyter.testing import HttpError, ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = pytest.mark.e2e  # the product runs in a kernel process the test drives

CSV = "day,orders\n1,3.1\n2,4.9\nn/a,\n3,7.0\n4,9.1\n5,\n"
LOAD = "import pandas as pd\nraw = pd.read_csv('sales.csv')\nraw.shape"
CLEAN = "clean = raw.apply(pd.to_numeric, errors='coerce').dropna()\nlen(clean)"
PLOT_AND_FIT = """\
import matplotlib.pyplot as plt
import numpy as np
slope, intercept = np.polyfit(clean["day"], clean["orders"], 1)
fig, ax = plt.subplots()
ax.scatter(clean["day"], clean["orders"], label="orders")
ax.plot(clean["day"], slope * clean["day"] + intercept, label="fit")
ax.legend()
plt.show()
fit = pd.DataFrame({"slope": [slope], "intercept": [intercept]}).round(2)
fit"""


def test_a_data_notebook_runs_end_to_end(
    llm: ScriptedLLMServer, agent_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in kernel_env(agent_home).items():
        monkeypatch.setenv(name, value)
    (tmp_path / "sales.csv").write_text(CSV)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext prime_jupyter"),
        nbformat.v4.new_code_cell(LOAD),
        nbformat.v4.new_code_cell(CLEAN),
        nbformat.v4.new_code_cell("%%prime\nPlot `clean` and fit a line to orders per day; keep the fit in `fit`."),
        nbformat.v4.new_code_cell("print(f'{slope:.2f} {intercept:.2f}', fit.loc[0, 'slope'], type(fig).__name__)"),
        nbformat.v4.new_code_cell("clean.assign(predicted=slope * clean['day'] + intercept).round(2).to_dict('list')"),
    ]
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="Least squares."), ToolCall(name="ipython", arguments={"code": PLOT_AND_FIT})]),
        ScriptedTurn(blocks=[Text(text="The line is **orders = 2.01 day + 1.00**.", chunks=4)]),
    )
    resources = {"metadata": {"path": str(tmp_path)}}
    client = NotebookClient(notebook, timeout=120, kernel_name="python3", resources=resources)
    client.execute()
    nbformat.validate(notebook)
    assert notebook.cells[1].outputs[0]["data"]["text/plain"] == "(6, 2)"
    assert notebook.cells[2].outputs[0]["data"]["text/plain"] == "4"

    prime_outputs = notebook.cells[3].outputs
    markdown = [o["data"]["text/markdown"] for o in prime_outputs if "text/markdown" in o.get("data", {})]
    assert markdown[:2] == ["Least squares.", "The line is **orders = 2.01 day + 1.00**."]
    # under the answer: what the agent's code made in the user's namespace
    (made,) = markdown[2:]
    assert made.startswith("*Kernel: created `slope` (float64 2.01), `intercept` (float64 ")
    assert made.endswith("`fig` (Figure), `ax` (Axes), `fit` (DataFrame 1x2)*")
    [png] = [o["data"]["image/png"] for o in prime_outputs if "image/png" in o.get("data", {})]
    assert base64.b64decode(png).startswith(b"\x89PNG\r\n\x1a\n")  # the agent's figure, a real output
    [table] = [o["data"]["text/html"] for o in prime_outputs if o["output_type"] == "execute_result"]
    assert "<table" in table and "<td>2.01</td>" in table and "<td>1.0</td>" in table

    sent = json.dumps(llm.requests[0].body)
    assert "Plot `clean` and fit a line" in sent
    held = llm.requests[0].body["messages"][0]["content"][0]["text"]  # type: ignore[index,call-overload]
    assert "- clean: DataFrame 4x2; day: float64, orders: float64" in held, held  # the model knew what the kernel held
    tool_result = json.dumps(llm.requests[1].body["messages"][-1])  # type: ignore[index,call-overload]
    assert '"media_type": "image/png"' in tool_result and "2.01" in tool_result  # what the agent saw

    assert notebook.cells[4].outputs[0]["text"] == "2.01 1.00 2.01 Figure\n"
    predicted = notebook.cells[5].outputs[0]["data"]["text/plain"]
    assert "'predicted': [3.01, 5.02, 7.03, 9.04]" in predicted


def test_a_failed_prime_cell_stops_the_notebook_under_nbclient(
    llm: ScriptedLLMServer, agent_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression (issue 27, item 5): the failed cell printed its error and nbclient ran on past it."""
    for name, value in kernel_env(agent_home).items():
        monkeypatch.setenv(name, value)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext prime_jupyter"),
        nbformat.v4.new_code_cell("%%prime --no-raise\nfirst"),
        nbformat.v4.new_code_cell("%%prime\nsecond"),
        nbformat.v4.new_code_cell("print('after')"),
    ]
    llm.enqueue(*(ScriptedTurn(fault=HttpError(status=400, message="the model refused")) for _ in range(2)))
    resources = {"metadata": {"path": str(tmp_path)}}
    client = NotebookClient(notebook, timeout=120, kernel_name="python3", resources=resources)
    with pytest.raises(CellExecutionError) as raised:
        client.execute()
    assert raised.value.ename == "RunFailedError" and "the model refused" in raised.value.evalue
    kinds = [[output["output_type"] for output in cell.outputs] for cell in notebook.cells[1:]]
    assert "error" not in kinds[0] and kinds[1][-1] == "error" and kinds[2] == []
    assert "the model refused" in json.dumps(notebook.cells[2].outputs[0])  # shown before it raised
