"""`prime_jupyter.Session`, the Python API: in this process (a script) and in a notebook's kernel."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from notebook_kit import CellResult, Kernel, kernel_env

import prime_jupyter
from prime_jupyter.protocol.events import AgentEnd, MessageUpdate, ToolExecutionEnd, ToolExecutionStart
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

WAIT_FOR_GO = "while [ ! -f go ]; do sleep 0.02; done; echo went"


@pytest.fixture
def script_env(agent_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PRIME_AGENT_DIR", str(agent_home))
    monkeypatch.setenv("SCRIPTED_TEST_KEY", "fake-key")
    return agent_home


@pytest.fixture
def session(script_env: Path, tmp_path: Path) -> Iterator[prime_jupyter.Session]:
    with prime_jupyter.Session(cwd=tmp_path, tools=("read", "bash")) as session:
        yield session


def test_session_is_exported_lazily_and_imports_nothing_heavy() -> None:
    probe = "import sys, prime_jupyter; prime_jupyter.Session; print(sorted(m for m in HEAVY if m in sys.modules))"
    heavy = ("anthropic", "openai", "IPython", "jupyter_client", "textual", "tornado")
    code = f"HEAVY = {heavy!r}\n{probe}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=kernel_env(Path()))
    assert done.stdout == "[]\n", done.stderr
    assert "Session" in prime_jupyter.__all__ and prime_jupyter.Session.__name__ == "Session"


def test_prompt_returns_the_answer_and_its_messages(
    session: prime_jupyter.Session, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("the key is 7")
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="read", arguments={"path": "notes.txt"})]),
        ScriptedTurn(blocks=[Text(text="The key is ", chunks=2), Text(text="7.")]),
    )
    answer = session.prompt("what is the key?")
    assert answer.text == "The key is 7." and answer.stop_reason == "stop" and session.kernel == "separate"
    assert [m.role for m in answer.messages] == ["user", "assistant", "toolResult", "assistant"]


def test_aprompt_is_the_async_form(session: prime_jupyter.Session, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="async answer")]))
    assert asyncio.run(session.aprompt("hi")).text == "async answer"


def test_stream_yields_the_events_as_they_come(session: prime_jupyter.Session, llm: ScriptedLLMServer) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo hi"})]),
        ScriptedTurn(blocks=[Text(text="one two three", chunks=3)]),
    )
    events = list(session.stream("go"))
    kinds = [type(event) for event in events]
    assert ToolExecutionStart in kinds and ToolExecutionEnd in kinds and kinds[-1] is AgentEnd
    assert sum(1 for event in events if isinstance(event, MessageUpdate)) >= 3


def test_abort_stops_a_running_tool_and_the_session_goes_on(
    session: prime_jupyter.Session, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "sleep 60"})]))
    for event in session.stream("wait a minute"):
        if isinstance(event, ToolExecutionStart):
            session.abort()
        last = event
    assert isinstance(last, AgentEnd)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="still here")]))
    assert session.prompt("and now?").text == "still here"


def test_export_writes_the_transcript(session: prime_jupyter.Session, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="exported answer")]))
    session.prompt("something to export")
    assert "exported answer" in session.export("jsonl").read_text()


@pytest.mark.e2e
def test_in_a_notebook_the_api_works_in_the_kernels_namespace(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "made_by_sync = 21"})]),
        ScriptedTurn(blocks=[Text(text="sync done")]),
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "made_by_async = made_by_sync * 2"})]),
        ScriptedTurn(blocks=[Text(text="async done")]),
    )
    cell = kernel.run("from prime_jupyter import Session\napi = Session()\nprint(api.kernel, api.prompt('go').text)")
    assert cell.text().strip().endswith("notebook sync done"), cell.text()
    cell = kernel.run("answer = await api.aprompt('again')\nprint(answer.text, made_by_async)")
    assert cell.text().strip().endswith("async done 42"), cell.text()
    body = llm.requests[-1].body
    assert isinstance(body, dict) and "again" in json.dumps(body["messages"])
    kernel.run("api.close()")


def test_steer_reaches_the_running_agent(
    session: prime_jupyter.Session, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": WAIT_FOR_GO})]),
        ScriptedTurn(blocks=[Text(text="steered")]),
    )
    for event in session.stream("start working"):
        if isinstance(event, ToolExecutionStart):  # the run is busy until `go` exists
            session.steer("use the other file")
            (tmp_path / "go").touch()
    assert "use the other file" in json.dumps(llm.requests[-1].body)


def test_a_follow_up_runs_after_the_answer(
    session: prime_jupyter.Session, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": WAIT_FOR_GO})]),
        ScriptedTurn(blocks=[Text(text="first")]),
        ScriptedTurn(blocks=[Text(text="second")]),
    )
    for event in session.stream("do the first thing"):
        if isinstance(event, ToolExecutionStart):  # the run is busy until `go` exists
            session.follow_up("and then this")
            (tmp_path / "go").touch()
        last = event
    assert isinstance(last, AgentEnd) and "and then this" in json.dumps(llm.requests[-1].body)
    assert [m.role for m in last.messages][-2:] == ["user", "assistant"]


def test_fork_continues_from_an_earlier_answer(session: prime_jupyter.Session, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one")]), ScriptedTurn(blocks=[Text(text="two")]))
    first = session.prompt("the first question")
    original = session.session_id
    session.prompt("the second question")
    assert first.entry_id is not None and session.fork(first.entry_id, "at") != original
    llm.enqueue(ScriptedTurn(blocks=[Text(text="forked")]))
    session.prompt("after the fork")
    sent = json.dumps(llm.requests[-1].body)
    assert "the first question" in sent and "the second question" not in sent


def test_subscribers_see_every_prompts_events(session: prime_jupyter.Session, llm: ScriptedLLMServer) -> None:
    seen: list[str] = []
    unsubscribe = session.subscribe(lambda event: seen.append(event.type))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="a")]), ScriptedTurn(blocks=[Text(text="b")]))
    session.prompt("one")
    session.prompt("two")
    unsubscribe()
    assert seen.count("agent_end") == 2


def test_a_decorated_function_is_a_tool_the_model_can_call(
    session: prime_jupyter.Session, llm: ScriptedLLMServer
) -> None:
    calls: list[tuple[int, int, str]] = []

    @session.tool
    def scale(value: int, factor: int = 2, unit: str = "m") -> dict[str, object]:
        """Multiply a value by a factor."""
        calls.append((value, factor, unit))
        return {"result": value * factor, "unit": unit}

    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="scale", arguments={"value": 21})]),
        ScriptedTurn(blocks=[Text(text="42 m")]),
    )
    assert session.prompt("scale 21").text == "42 m" and calls == [(21, 2, "m")]
    body = llm.requests[-2].body
    assert isinstance(body, dict)
    [spec] = [tool for tool in body["tools"] if tool["name"] == "scale"]
    assert spec["description"] == "Multiply a value by a factor." and spec["input_schema"]["required"] == ["value"]
    assert spec["input_schema"]["properties"]["value"]["type"] == "integer"
    assert '{\\"result\\": 42, \\"unit\\": \\"m\\"}' in json.dumps(llm.requests[-1].body)


def test_a_tool_function_that_raises_is_a_failed_call(session: prime_jupyter.Session, llm: ScriptedLLMServer) -> None:
    def explode() -> str:
        """Always fails."""
        raise ValueError("no luck")

    session.tool(explode)
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="explode")]), ScriptedTurn(blocks=[Text(text="it failed")]))
    assert session.prompt("try it").text == "it failed" and "no luck" in json.dumps(llm.requests[-1].body)


@pytest.mark.e2e
def test_in_a_notebook_tool_functions_run_on_the_shells_thread(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="where")]), ScriptedTurn(blocks=[Text(text="found it")]))
    code = """\
import threading
from prime_jupyter import Session
with Session() as helper:
    @helper.tool
    def where() -> str:
        "Which thread runs this function."
        return "the shell's" if threading.current_thread() is threading.main_thread() else "another"
    print(helper.prompt("where do you run?").text)"""
    assert kernel.run(code).text().strip() == "found it"
    assert "the shell's" in json.dumps(llm.requests[-1].body)


@pytest.mark.e2e
def test_interrupting_an_awaited_prompt_stops_the_code_it_runs(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    code = "import time\nprint('started', flush=True)\nfor _ in range(6000):\n    time.sleep(0.01)\nprint('finished')"
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": code})]))
    kernel.run("from prime_jupyter import Session\nawaited = Session()")
    msg_id = kernel.submit("answer = await awaited.aprompt('run the long job')")
    seen = CellResult()
    kernel.wait_for_output(msg_id, "started", seen, kind="stream")
    kernel.manager.interrupt_kernel()
    rest = kernel.collect(msg_id)
    assert rest.reply["ename"] == "KeyboardInterrupt" and "finished" not in rest.text()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="after the interrupt")]))
    assert kernel.run("print((await awaited.aprompt('again')).text)").text().strip() == "after the interrupt"
    kernel.run("awaited.close()")
