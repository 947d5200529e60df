"""Jupyter's interrupt (the stop button) during a `%%prime` run: the run aborts, nothing is wedged."""

from __future__ import annotations

from pathlib import Path

import pytest
from notebook_kit import CellResult, Kernel

from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = pytest.mark.e2e  # the product runs in a kernel process the test drives

LONG_CODE = "import time\nprint('started', flush=True)\nfor _ in range(6000):\n    time.sleep(0.01)\nprint('finished')"


def test_an_interrupt_during_a_long_tool_call_aborts_the_run(
    kernel: Kernel, llm: ScriptedLLMServer, agent_home: Path
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": LONG_CODE})]))
    msg_id = kernel.submit("%%prime\nrun the long job")
    seen = CellResult()
    kernel.wait_for_output(msg_id, "started", seen, kind="stream")  # the code runs (not: its block shows)
    kernel.manager.interrupt_kernel()
    rest = kernel.collect(msg_id)
    cell = CellResult(seen.messages + rest.messages, rest.reply)
    assert cell.status == "error" and cell.reply["ename"] == "KeyboardInterrupt"
    printed = "".join(m["content"]["text"] for m in cell.of_type("stream"))
    assert printed == "started\n" and "Interrupted: the run was aborted." in cell.text()

    assert kernel.run("print('still here')").text().strip() == "still here"
    llm.enqueue(ScriptedTurn(blocks=[Text(text="back again")]))
    assert "back again" in kernel.run("%%prime\nare you there?").text()

    [path] = (agent_home / "sessions").rglob("*.jsonl")
    messages = SessionManager.open(path).build_context().messages
    roles = [message.role for message in messages]
    assert roles[:3] == ["user", "assistant", "toolResult"] and roles[-1] == "assistant"


def test_an_interrupt_while_the_answer_streams_aborts_it(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="word " * 400, chunks=400)], chunk_delay_s=0.05))
    msg_id = kernel.submit("%%prime\ntalk for a while")
    seen = CellResult()
    kernel.wait_for_output(msg_id, "word", seen)
    kernel.manager.interrupt_kernel()
    rest = kernel.collect(msg_id)
    assert rest.reply["ename"] == "KeyboardInterrupt" and "Interrupted: the run was aborted." in rest.text()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="done talking")]))
    assert "done talking" in kernel.run("%%prime\nstop there").text()


def test_the_tool_time_limit_holds_in_the_notebooks_kernel(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    settings = Path(kernel.run("import os\nprint(os.getcwd())").text().strip()) / ".prime" / "agent" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"kernel": {"timeoutS": 0.5}}')
    try:
        kernel.run("%prime new")  # a new session reads the settings
        code = "kept_before = 1\nimport time\nwhile True:\n    time.sleep(0.01)"
        llm.enqueue(
            ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": code})]),
            ScriptedTurn(blocks=[Text(text="it timed out")]),
        )
        cell = kernel.run("%%prime\nrun forever")
        assert cell.status == "ok" and "exceeded the time limit of 0.5 s" in cell.text()
        assert "it timed out" in cell.text() and kernel.run("print(kept_before)").text().strip() == "1"
    finally:
        settings.unlink()
        kernel.run("%prime new")
