"""The README's Python API example, taken from README.md and run as a script against the scripted provider,
so the README cannot drift from the API."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from notebook_kit import ROOT

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = pytest.mark.e2e  # the example runs in a script process with a kernel of its own

LOAD = "import pandas as pd\ndf = pd.read_csv('data.csv')\ndf.shape"
PLOT = "import matplotlib.pyplot as plt\ndf.iloc[:, 1].plot()\nplt.show()"


def readme_api_example() -> str:
    """The README's code block that uses `prime_jupyter.Session`."""
    blocks = [block.split("```", 1)[0] for block in (ROOT / "README.md").read_text().split("```python\n")[1:]]
    [example] = [block for block in blocks if "from prime_jupyter import Session" in block]
    return example


def test_the_readmes_python_api_example_runs(llm: ScriptedLLMServer, tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text("day,orders\n1,12\n2,15\n3,11\n4,19\n")
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": LOAD})]),
        ScriptedTurn(blocks=[Text(text="data.csv has 4 rows and 2 columns.", chunks=3)]),
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": PLOT})]),
        ScriptedTurn(blocks=[Text(text="Plotted the orders per day.")]),
        ScriptedTurn(blocks=[ToolCall(name="exchange_rate", arguments={"currency": "USD"})]),
        ScriptedTurn(blocks=[Text(text="100 USD is 108 euros.")]),
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.endswith("_BASE_URL")}
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(
        ANTHROPIC_API_KEY="fake-key", ANTHROPIC_BASE_URL=llm.base_url, PRIME_AGENT_DIR=str(agent_dir), PYTHONPATH=path
    )
    script = [sys.executable, "-c", readme_api_example()]
    done = subprocess.run(script, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=150)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == "data.csv has 4 rows and 2 columns."
    assert "tool_execution_start" in out and "tool_execution_end" in out and out[-3] == "agent_end"
    assert out[-2] == "100 USD is 108 euros."
    requests = [json.dumps(request.body) for request in llm.requests]
    assert all('"model": "claude-sonnet-5-5"' in request for request in requests)
    assert "(4, 2)" in requests[1]  # the shape the agent's kernel computed from data.csv
    assert '"media_type": "image/png"' in requests[3]  # the plot, a real figure
    assert "1.08" in requests[5]  # what the decorated function returned
    notebook = nbformat.read(Path(out[-1]), as_version=4)
    nbformat.validate(notebook)
    outputs = [output for cell in notebook.cells for output in cell.get("outputs", [])]
    pngs = [output["data"]["image/png"] for output in outputs if "image/png" in output.get("data", {})]
    assert [base64.b64decode(png)[:4] for png in pngs] == [b"\x89PNG"]
