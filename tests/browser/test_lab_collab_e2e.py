"""The notebook tools in a collaborative JupyterLab, end to end: headless Chromium has a notebook open
(jupyter-collaboration, the `collab` extra, loaded by the lab as every server of this environment loads
it), the user types in it, and the agent, asked over the chat API, inserts a cell and runs it. The new
cell and its output appear in the open notebook without a reload, and the user's typing stays. The
screenshot lands in `tests/browser/screenshots/collab-01-agent-cell-live.png`.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from kit.browser import SCREENSHOTS, finish_scenario, start_lab, start_scenario, wait_for_file, write_agent_dir
from kit.server import PrimeClient, part_text, tool_parts

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytest.importorskip("jupyter_server_ydoc", reason="the collab extra (jupyter-collaboration) is not installed")

pytestmark = pytest.mark.timeout(300)

DRIVER = Path(__file__).resolve().parent / "e2e" / "collab.mjs"
TYPED = " typed while the agent worked"


def notebook_agent_dir(home: Path, llm_url: str) -> Path:
    agent = write_agent_dir(home, llm_url)
    settings = json.loads((agent / "settings.json").read_text())
    (agent / "settings.json").write_text(
        json.dumps({**settings, "tools": ["notebook_read", "notebook_edit", "notebook_run"]})
    )
    return agent


async def ask(prime: PrimeClient) -> list[Any]:
    session_id = str((await prime.post("chat/new", {}))["session"]["sessionId"])
    return await prime.turn(session_id, "add a cell that doubles x and run the notebook")


def test_an_open_notebook_shows_the_agents_cell_and_output_live_and_keeps_the_users_typing(
    llm: ScriptedLLMServer, turns: ScriptedLLMServer, tmp_path: Path
) -> None:
    lab = start_lab(tmp_path, notebook_agent_dir(tmp_path / "agent", llm.base_url))
    try:
        nb = nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell("x = 20"), nbformat.v4.new_markdown_cell("# Notes")]
        )
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, tmp_path / "root" / "live.ipynb")
        edit = {"action": "insert", "after": nb.cells[0].id, "source": "print(x * 2)"}
        turns.enqueue(ScriptedTurn(blocks=[ToolCall(name="notebook_read", arguments={"path": "live.ipynb"})]))
        turns.enqueue(
            ScriptedTurn(blocks=[ToolCall(name="notebook_edit", arguments={"path": "live.ipynb", "edits": [edit]})])
        )
        turns.enqueue(ScriptedTurn(blocks=[ToolCall(name="notebook_run", arguments={"path": "live.ipynb"})]))
        turns.enqueue(ScriptedTurn(blocks=[Text(text="Done: 40.")]))
        marker = tmp_path / "typed"
        params = {
            "path": "live.ipynb",
            "typeInto": 1,
            "typed": TYPED,
            "marker": str(marker),
            "source": "print(x * 2)",
            "expect": "40",
        }
        driver = start_scenario(lab, "live", params, driver=DRIVER)
        try:
            wait_for_file(marker, driver)
            prime = PrimeClient(f"{lab.url}prime/api/", {"Authorization": f"token {lab.token}"})
            frames = asyncio.run(ask(prime))
            report = finish_scenario(lab, driver)
        finally:
            driver.kill()
    finally:
        lab.stop()
    parts = tool_parts(frames)
    assert [p["state"] for p in parts] == ["output-available"] * 3, [part_text(p) for p in parts]
    assert report["collaborative"] is True
    assert [c["source"] for c in report["cells"]] == ["x = 20", "print(x * 2)", "# Notes" + TYPED]
    assert "40" in report["cells"][1]["outputs"]
    assert (SCREENSHOTS / "collab-01-agent-cell-live.png").exists()
