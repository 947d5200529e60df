"""`%prime` commands: one session per notebook, new / sessions / resume / model / status / export, and
`--kernel separate`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from notebook_kit import Kernel, kernel_env

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = pytest.mark.e2e  # the product runs in a kernel process the test drives


def sent(llm: ScriptedLLMServer) -> dict[str, object]:
    body = llm.requests[-1].body
    assert isinstance(body, dict)
    return body


def session_id(kernel: Kernel) -> str:
    found = re.search(r"\*\*session\*\* `([0-9a-f-]+)`", kernel.run("%prime status").text())
    assert found is not None
    return found.group(1)


def test_status_names_the_model_and_the_kernel(kernel: Kernel) -> None:
    status = kernel.run("%prime status").text()
    assert "`scripted/m1`" in status and "this notebook" in status and "**tokens** 0 in, 0 out" in status


def test_new_sessions_and_resume(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    first = session_id(kernel)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="noted")]))
    kernel.run("%%prime\nthe password is swordfish")
    assert "new session" in kernel.run("%prime new").text()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="fresh")]))
    kernel.run("%%prime\nhello again")
    assert "swordfish" not in json.dumps(sent(llm)["messages"])
    listing = kernel.run("%prime sessions").text()
    assert first in listing and "the password is swordfish" in listing
    assert f"Resumed session {first}" in kernel.run(f"%prime resume {first}").text()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="swordfish")]))
    kernel.run("%%prime\nwhat was the password?")
    assert "the password is swordfish" in json.dumps(sent(llm)["messages"])


def test_model_switches_the_model_of_the_next_prompt(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    assert "scripted/m2" in kernel.run("%prime model scripted/m2").text()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="from m2")]))
    kernel.run("%%prime\nwho are you?")
    assert sent(llm)["model"] == "m2" and "`scripted/m2`" in kernel.run("%prime status").text()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="from m1")]))
    kernel.run("%%prime --model scripted/m1\nand now?")
    assert sent(llm)["model"] == "m1"


def test_export_writes_the_session(kernel: Kernel) -> None:
    printed = kernel.run("%prime export jsonl").text()
    path = Path(printed.strip().removeprefix("Exported to "))
    assert path.is_file() and "swordfish" in path.read_text()


def test_a_separate_kernel_keeps_the_notebooks_namespace_apart(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "elsewhere = 5\nprint('in', elsewhere)"})]),
        ScriptedTurn(blocks=[Text(text="ran it elsewhere")]),
    )
    cell = kernel.run("%%prime --kernel separate\nrun it in your own kernel")
    assert cell.status == "ok" and "in 5" in cell.text() and "ran it elsewhere" in cell.text()
    assert "NameError" in kernel.run("elsewhere").text()
    assert "a separate kernel" in kernel.run("%prime status").text()
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "here = 6"})]),
        ScriptedTurn(blocks=[Text(text="back here")]),
    )
    kernel.run("%%prime --kernel notebook\nand here")
    assert kernel.run("print(here)").text().strip() == "6"


def test_the_session_resumes_in_a_new_kernel(
    kernel: Kernel, llm: ScriptedLLMServer, agent_home: Path, tmp_path: Path
) -> None:
    current = session_id(kernel)
    other = Kernel(tmp_path, kernel_env(agent_home))
    try:
        other.run("%load_ext prime_jupyter")
        assert current in other.run(f"%prime resume {current}").text()
        llm.enqueue(ScriptedTurn(blocks=[Text(text="I remember")]))
        assert "I remember" in other.run("%%prime\ndo you remember the password?").text()
        assert "the password is swordfish" in json.dumps(sent(llm)["messages"])
    finally:
        other.shutdown()


def test_fork_and_tools(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    before = session_id(kernel)
    forked = kernel.run("%prime fork").text()
    assert "Forked into session" in forked and before not in forked and session_id(kernel) != before
    assert "Tools: read, bash" in kernel.run("%prime tools read,bash").text()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="tools changed")]))
    kernel.run("%%prime\nwhat tools do you have?")
    names = [tool["name"] for tool in sent(llm)["tools"]]  # type: ignore[attr-defined]
    assert names == ["read", "bash", "ask"]
    assert "the password is swordfish" in json.dumps(sent(llm)["messages"])


def test_a_notebook_session_opens_in_jupyter_prime_r(
    kernel: Kernel, llm: ScriptedLLMServer, agent_home: Path, tmp_path: Path
) -> None:
    current = session_id(kernel)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="from the terminal")]))
    done = subprocess.run(
        [sys.executable, "-m", "prime_jupyter.cli", "-r", current, "--tools", "read", "-p", "still there?"],
        capture_output=True, text=True, timeout=120, env=kernel_env(agent_home), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout == "from the terminal\n", done.stderr
    assert "the password is swordfish" in json.dumps(sent(llm)["messages"])


def test_a_missing_api_key_fails_the_cell_with_a_message_and_no_stack(kernel: Kernel) -> None:
    kernel.run("%prime model anthropic/claude-sonnet-5-5")
    try:
        cell = kernel.run("%%prime\nhello")
        [error] = [m["content"] for m in cell.of_type("error")]
        assert cell.status == "error" and "ANTHROPIC_API_KEY" in error["evalue"]
        assert error["traceback"] == [f"RunFailedError: {error['evalue']}"]  # no stack trace of our code
        assert kernel.run("%%prime --no-raise\nhello").status == "ok"
    finally:
        kernel.run("%prime model scripted/m1")


def test_mode_switches_the_permission_mode_and_plan_offers_only_read_only_tools(
    kernel: Kernel, llm: ScriptedLLMServer
) -> None:
    assert "Permission mode: auto" in kernel.run("%prime mode").text()  # the kit's settings
    assert "Permission mode: plan" in kernel.run("%prime mode plan").text()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="a plan")]))
    kernel.run("%%prime\nplan it")
    offered = {t["name"] for t in sent(llm)["tools"]}  # type: ignore[union-attr]
    assert "ask" in offered and offered <= {"read", "notebook_read", "ask"}  # the module's tools vary by test
    assert "plan mode" in json.dumps(sent(llm)["system"])
    assert "ask, accept-edits, plan, auto" in kernel.run("%prime mode yolo").text()


def test_rewind_undoes_the_file_change_of_the_last_prompt(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    kernel.run("%prime tools write,read")
    kernel.run("%prime mode auto")  # the module's kernel keeps the mode an earlier test chose
    where = kernel.run(
        "import os, pathlib\nplan = pathlib.Path(os.getcwd(), 'plan.txt')\nplan.write_text('v1')\nprint(plan)"
    )
    path = where.text().strip()
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="write", arguments={"path": path, "content": "v2"})]),
        ScriptedTurn(blocks=[Text(text="wrote v2")]),
    )
    kernel.run("%%prime\nwrite v2")
    assert kernel.run("print(plan.read_text())").text().strip() == "v2"
    said = kernel.run("%prime rewind").text()
    assert said.startswith("Rewound: restored plan.txt."), said
    assert kernel.run("print(plan.read_text())").text().strip() == "v1"
    llm.enqueue(ScriptedTurn(blocks=[Text(text="fresh")]))
    kernel.run("%%prime\nsomething else")
    assert "write v2" not in json.dumps(sent(llm)["messages"])  # the conversation went on from before it
