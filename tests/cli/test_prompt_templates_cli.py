"""`jupyter prime -p "/review notes.py"`: a prompt template expands in a print-mode run as on every surface."""

from __future__ import annotations

from pathlib import Path

import pytest
from kit.cli import prime

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess


def test_a_template_expands_in_a_print_run(agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path) -> None:
    prompts = agent_dir / "prompts"
    prompts.mkdir()
    (prompts / "review.md").write_text("---\ndescription: review a file\n---\nReview $1, then ${@:2}.")
    llm.enqueue(ScriptedTurn(blocks=[Text(text="Reviewed.")]))
    done = prime(agent_dir, "--model", "scripted/m1", "-p", "/review notes.py the tests too", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Reviewed."
    body = llm.requests[-1].body
    assert isinstance(body, dict)
    assert body["messages"][-1]["content"][0]["text"] == "Review notes.py, then the tests too."
