"""Jupyter's interrupt (the stop button) during a `%%prime` run: the run aborts, nothing is wedged."""

from __future__ import annotations

from pathlib import Path

from notebook_kit import CellResult, Kernel

from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

LONG_CODE = "import time\nprint('started', flush=True)\nfor _ in range(6000):\n    time.sleep(0.01)\nprint('finished')"


def test_an_interrupt_during_a_long_tool_call_aborts_the_run(
    kernel: Kernel, llm: ScriptedLLMServer, agent_home: Path
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": LONG_CODE})]))
    msg_id = kernel.submit("%%prime\nrun the long job")
    seen = CellResult()
    kernel.wait_for_output(msg_id, "started", seen)
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
