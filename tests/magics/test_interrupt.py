"""Jupyter's interrupt (the stop button) during a `%%prime` run: the run aborts, nothing is wedged."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import nbformat
import pytest
from jupyter_client.utils import run_sync
from nbclient import NotebookClient
from notebook_kit import CellResult, Kernel, kernel_env

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


def test_the_stop_button_shows_one_line_and_no_traceback(
    llm: ScriptedLLMServer, agent_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31 item 6: after "Interrupted: the run was aborted." the cell showed a KeyboardInterrupt traceback
    through prime_jupyter/magics/. Under nbclient, the kernel is interrupted once the slow answer streams."""
    for name, value in kernel_env(agent_home).items():
        monkeypatch.setenv(name, value)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="word " * 400, chunks=400)], chunk_delay_s=0.05))
    asked = len(llm.requests)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("%load_ext prime_jupyter"), nbformat.v4.new_code_cell("%%prime\ntalk")]
    resources = {"metadata": {"path": str(tmp_path)}}
    client = NotebookClient(notebook, timeout=120, allow_errors=True, kernel_name="python3", resources=resources)

    def stop_once_it_streams(cell: nbformat.NotebookNode, cell_index: int, **_: object) -> None:
        if cell_index == 1:
            threading.Thread(target=interrupt_when_asked, daemon=True).start()

    def interrupt_when_asked() -> None:
        deadline = time.monotonic() + 60
        while len(llm.requests) == asked and time.monotonic() < deadline:  # the model is asked: the run streams
            time.sleep(0.01)
        assert client.km is not None
        run_sync(client.km.interrupt_kernel)()  # what the stop button asks of the kernel manager

    client.on_cell_execute = stop_once_it_streams
    client.execute()
    outputs = notebook.cells[1].outputs
    [error] = [o for o in outputs if o["output_type"] == "error"]
    assert error["ename"] == "KeyboardInterrupt" and error["traceback"] == ["Interrupted: the run was aborted."]
    shown = json.dumps([o for o in outputs if o["output_type"] != "error"])
    assert "Interrupted" not in shown and "Traceback" not in shown and "prime_jupyter" not in shown, shown
