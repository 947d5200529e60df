"""`jupyter prime -p` edits and runs a notebook on disk with its default tools, end to end in a subprocess."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from kit.cli import prime

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess


def test_print_mode_edits_and_runs_a_notebook_on_disk(agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("rows = [3, 1, 2]")])
    nbformat.write(nb, work / "report.ipynb")
    first = nb.cells[0].id
    edit = {"path": "report.ipynb", "edits": [{"action": "insert", "after": first, "source": "print(sorted(rows))"}]}
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="notebook_read", arguments={"path": "report.ipynb"})]),
        ScriptedTurn(blocks=[ToolCall(name="notebook_edit", arguments=edit)]),
        ScriptedTurn(blocks=[ToolCall(name="notebook_run", arguments={"path": "report.ipynb"})]),
        ScriptedTurn(blocks=[Text(text="sorted and printed")]),
    )
    done = prime(agent_dir, "--model", "scripted/m1", "-p", "sort the rows in report.ipynb", cwd=work)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "sorted and printed\n"
    saved = nbformat.read(work / "report.ipynb", as_version=4)
    nbformat.validate(saved)
    assert [cell.source for cell in saved.cells] == ["rows = [3, 1, 2]", "print(sorted(rows))"]
    assert saved.cells[1].outputs[0]["text"] == "[1, 2, 3]\n"
    assert saved.cells[1].metadata["prime"]["model"] == "scripted/m1"
    # the run's result reached the model
    assert "[1, 2, 3]" in str(llm.requests[-1].body)
