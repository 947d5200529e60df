"""`--permission-mode` on the command line: `-p` without a terminal runs in `auto` unless a mode is given; in
`ask`, a call that needs approval is refused with a message saying how to allow it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit.cli import prime

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess

ECHO = ToolCall(name="bash", arguments={"command": "echo ran"})


def tool_result_sent(llm: ScriptedLLMServer) -> str:
    body = llm.requests[-1].body
    assert isinstance(body, dict)
    return json.dumps(body["messages"][-1])


def test_print_mode_in_ask_refuses_a_command_with_the_hint(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[ECHO]), ScriptedTurn(blocks=[Text(text="could not run it")]))
    done = prime(agent_dir, "--model", "scripted/m1", "--tools", "bash", "--permission-mode", "ask", "-p", "run it")
    assert done.returncode == 0, done.stderr
    sent = tool_result_sent(llm)
    assert "did not run" in sent and "--permission-mode auto" in sent and '"text": "ran"' not in sent


def test_print_mode_without_a_mode_runs_tools_without_asking(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    (agent_dir / "settings.json").unlink()  # no permissionMode anywhere: -p's own default
    llm.enqueue(ScriptedTurn(blocks=[ECHO]), ScriptedTurn(blocks=[Text(text="it ran")]))
    done = prime(agent_dir, "--model", "scripted/m1", "--tools", "bash", "-p", "run it")
    assert done.returncode == 0, done.stderr
    assert '"text": "ran"' in tool_result_sent(llm)


def test_an_unknown_mode_is_refused_by_the_parser(agent_dir: Path) -> None:
    done = prime(agent_dir, "--permission-mode", "yolo", "-p", "hi")
    assert done.returncode == 2 and "invalid choice: 'yolo'" in done.stderr
