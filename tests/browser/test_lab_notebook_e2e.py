"""`%%prime` in a JupyterLab notebook, end to end: headless Chromium against a real `jupyter lab`, whose
notebook kernel loads the magics and asks the scripted LLM server. The answer streams into the cell's own
output (one display, updated in place). Screenshots land in `tests/browser/screenshots/notebook-*.png`.

Streaming needs no panel: only Lab's notebook, a python3 kernel, and `prime_jupyter` importable in that
kernel. `--insert`'s provenance metadata needs the panel's labextension (`provenance.ts`): the lab loads
this checkout's build of it (`kit.browser.start_lab`).
"""

from __future__ import annotations

import json

import pytest
from kit.browser import NOTEBOOK_DRIVER, SCREENSHOTS, Lab, run_scenario

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = pytest.mark.timeout(300)

WORDS = " ".join(f"word{i}" for i in range(150))
ANSWER = f"The notebook answer begins. {WORDS}. The notebook answer ends."


def test_a_prime_cell_streams_its_answer_into_the_cells_output(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(ScriptedTurn(blocks=[Text(text=ANSWER, chunks=60)], chunk_delay_s=0.05))
    params = {"prompt": "Tell me about this notebook", "partial": "The notebook answer begins.", "expect": ANSWER}
    report = run_scenario(lab, "prime-cell", params, driver=NOTEBOOK_DRIVER)
    assert report["loaded"]["executionCount"] == 1 and "Error" not in report["loaded"]["text"]
    assert ANSWER in report["cell"]["text"] and "text/markdown" in report["cell"]["mimeTypes"]
    assert report["cell"]["executionCount"] == 2
    streaming = [text for text in report["samples"] if ANSWER not in text]  # seen before the answer was whole
    assert len(streaming) >= 2, f"the answer did not stream into the cell: {report['samples']}"
    assert "Tell me about this notebook" in json.dumps(turns.requests[-1].body)
    assert (SCREENSHOTS / "notebook-02-prime-answer.png").exists()


def test_insert_puts_the_code_in_a_new_cell_with_provenance_in_its_metadata(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(ScriptedTurn(blocks=[Text(text="Here:\n\n```python\nanswer = 6 * 7\nprint(answer)\n```\n")]))
    report = run_scenario(lab, "insert-cell", {"prompt": "code that prints 42"}, driver=NOTEBOOK_DRIVER)
    assert report["index"] == 2, report  # right below the %%prime cell
    origin, code = report["source"].split("\n", 1)
    assert code == "answer = 6 * 7\nprint(answer)"
    provenance = report["metadata"]  # set by the labextension from the set_next_input payload
    assert provenance is not None, "the inserted cell has no prime metadata"
    assert provenance["model"] == "scripted/m1" and provenance["entry"] and provenance["session"]
    assert origin == f"# prime: session {provenance['session']}, entry {provenance['entry']}, model scripted/m1"


AGENT_LINE = "print('from the agent', 6 * 7)"


def test_the_agents_cell_and_its_output_appear_in_the_open_notebook(lab: Lab, turns: ScriptedLLMServer) -> None:
    path = "agent-edit.ipynb"
    edit = {"path": path, "edits": [{"action": "insert", "after": "first", "source": AGENT_LINE}]}
    turns.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="notebook_edit", arguments=edit)]),
        ScriptedTurn(blocks=[ToolCall(name="notebook_run", arguments={"path": path})]),
        ScriptedTurn(blocks=[Text(text="Added and ran it.")]),
    )
    params = {
        "path": path,
        "cells": [{"id": "first", "source": "x = 1"}],
        "prompt": "add a cell that prints 42 and run the notebook",
        "expectSource": AGENT_LINE,
        "expectOutput": "from the agent 42",
    }
    report = run_scenario(lab, "agent-edits-open-notebook", params, driver=NOTEBOOK_DRIVER)
    sources = [cell["source"] for cell in report["facts"]]
    assert sources[:2] == ["x = 1", AGENT_LINE], report
    assert "from the agent 42" in report["facts"][1]["text"]
    assert report["inserted"] == 1 and report["active"] == 1  # the card's Open link went to the cell
    assert any(card.startswith("Inserted code cell") for card in report["cards"]), report["cards"]
    assert (SCREENSHOTS / "notebook-04-agent-edit.png").exists()


def test_ask_about_a_cell_runs_the_agents_code_where_df_exists(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "rows, cols = df.shape\nprint(df.shape)"})]),
        ScriptedTurn(blocks=[Text(text="df has 3 rows and 1 column.")]),
    )
    setup = "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2, 3]})"
    params = {"path": "asked.ipynb", "setup": setup, "prompt": "what shape has df?"}
    report = run_scenario(lab, "ask-about-df", params, driver=NOTEBOOK_DRIVER)
    assert "(3, 1)" in report["tool"], report
    assert "NameError" not in report["tool"]
    assert "(3, 1)" in json.dumps(turns.requests[-1].body)
    # the model was told what the notebook's kernel holds, and the panel says what its code created there
    asked = next(r for r in turns.requests if "what shape has df?" in json.dumps(r.body))
    assert "- df: DataFrame 3x1; a: int64" in json.dumps(asked.body)
    assert "Kernel: created `rows` (int 3), `cols` (int 1)" in report["panel"], report["panel"]


def test_keep_and_undo_per_cell_and_no_undo_over_the_users_typing(lab: Lab, turns: ScriptedLLMServer) -> None:
    path = "review.ipynb"
    read = ScriptedTurn(blocks=[ToolCall(name="notebook_read", arguments={"path": path})])
    first = [
        {"action": "replace", "cell_id": "b", "source": "total = 20"},
        {"action": "insert", "after": "a", "source": "rate = 0.5"},
    ]
    turns.enqueue(
        read,
        ScriptedTurn(blocks=[ToolCall(name="notebook_edit", arguments={"path": path, "edits": first})]),
        ScriptedTurn(blocks=[Text(text="Changed the total and added a rate.")]),
        ScriptedTurn(blocks=[ToolCall(name="notebook_read", arguments={"path": path})]),
        ScriptedTurn(
            blocks=[
                ToolCall(
                    name="notebook_edit",
                    arguments={"path": path, "edits": [{"action": "replace", "cell_id": "a", "source": "base = 100"}]},
                )
            ]
        ),
        ScriptedTurn(blocks=[Text(text="Changed the base.")]),
    )
    params = {
        "path": path,
        "cells": [{"id": "a", "source": "base = 1"}, {"id": "b", "source": "total = 2"}],
        "first": {
            "prompt": "change the total, add a rate",
            "replaced": "total = 20",
            "original": "total = 2",
            "inserted": "rate = 0.5",
        },
        "second": {"prompt": "change the base", "replaced": "base = 100"},
        "typed": "base = 7  # mine",
    }
    report = run_scenario(lab, "review-keep-undo", params, driver=NOTEBOOK_DRIVER)
    assert report["marked"]["sources"] == ["base = 1", "rate = 0.5", "total = 20"], report
    assert report["marked"]["bars"] == [False, True, True]
    assert report["reviewed"]["sources"] == ["base = 1", "rate = 0.5", "total = 2"]  # undone, and kept
    assert report["reviewed"]["bars"] == [False, False, False] and report["reviewed"]["dirty"] is False  # saved
    assert report["refused"]["sources"][0] == "base = 7  # mine"  # the user's typing is not clobbered
    assert "Not undone: this cell changed since the agent wrote it" in report["refused"]["bar"], report
    assert (SCREENSHOTS / "notebook-06-review.png").exists()
