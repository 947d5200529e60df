"""Extensions in `jupyter prime -p`, in process: a project extension's tool the model calls, its block the
model reads, and a broken extension said on stderr with its file and line while the run answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit.cli import prime

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess

PROJECT = """
WORD = {"type": "object", "properties": {"word": {"type": "string"}}}

def setup(prime):
    prime.register_tool("shout", "Upper-case a word.", WORD, lambda args: args["word"].upper())
    prime.on("tool_call", lambda e: {"block": True, "reason": "no shell here"} if e.tool_name == "bash" else None)
"""


def test_print_mode_runs_the_projects_extensions(agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path) -> None:
    work = tmp_path / "work"
    folder = work / ".prime" / "agent" / "extensions"
    folder.mkdir(parents=True)
    (folder / "house.py").write_text(PROJECT.lstrip())
    (folder / "broken.py").write_text("def setup(prime):\n    raise RuntimeError('half written')\n")
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="shout", arguments={"word": "hey"})]),
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo hi"})]),
        ScriptedTurn(blocks=[Text(text="answered")]),
    )
    done = prime(agent_dir, "--model", "scripted/m1", "--tools", "bash", "-p", "go", cwd=work)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "answered"
    assert f"{folder / 'broken.py'}:2: extension 'broken' failed in setup: RuntimeError: half written" in done.stderr
    sent = json.dumps(llm.requests[-1].body["messages"])
    assert '"text": "HEY"' in sent and "no shell here" in sent
