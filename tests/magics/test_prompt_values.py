"""Issue 31 item 2: `{df}` in a `%%prime` prompt sent `str(df)` (48 rows of text without the word `df`), and
the session was titled with the table. Run by nbclient in a real kernel, as a notebook is."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_kit import kernel_env

from prime_jupyter.magics.prompt_text import KERNEL_NOTE
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

pytestmark = pytest.mark.e2e  # the product runs in a kernel process the test drives

MAKE = """\
import pandas as pd
df = pd.DataFrame({"day": range(48), "orders": [d * 1.5 for d in range(48)], "region": ["north", "south"] * 24})
note = "word " * 4000
n = 48"""


def test_a_frame_is_named_and_summarised_and_the_title_is_the_users_words(
    llm: ScriptedLLMServer, agent_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in kernel_env(agent_home).items():
        monkeypatch.setenv(name, value)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext prime_jupyter"),
        nbformat.v4.new_code_cell(MAKE),
        nbformat.v4.new_code_cell("%%prime\nWhich region of {df} sells more ({n} days)? Mind {note}"),
        nbformat.v4.new_code_cell("%prime sessions"),
    ]
    llm.enqueue(ScriptedTurn(blocks=[Text(text="The south.")]))
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()

    sent = llm.requests[0].body["messages"][-1]["content"]  # type: ignore[index,call-overload]
    prompt = "".join(block["text"] for block in sent if block.get("type") == "text") if isinstance(sent, list) else sent
    assert prompt.startswith("Which region of `df` sells more (48 days)? Mind `note`\n\n" + KERNEL_NOTE), prompt
    assert "- `df`: DataFrame, 48 rows, 3 columns; columns (dtype): day (int64), orders (float64), region (" in prompt
    assert "\n4    4     6.0  north\n```" in prompt and "\n47  " not in prompt  # the first rows, not all 48
    assert "- `note`: str, 20,000 characters:" in prompt and "characters left out" in prompt
    assert len(prompt) < 4000, len(prompt)

    listed = json.dumps(notebook.cells[3].outputs)
    assert "Which region of `df` sells more (48 days)? Mind `note`" in listed, listed
    assert "day  orders" not in listed
