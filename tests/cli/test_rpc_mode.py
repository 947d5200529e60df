"""`jupyter prime --mode rpc`: a program's view of a subprocess driven by JSON lines on stdin, running
sessions against the scripted provider."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from kit.rpc_client import rpc_process

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]  # `jupyter prime` runs as a subprocess

AGENT = ("--mode", "rpc", "--model", "scripted/m1")


def ipython(code: str) -> ToolCall:
    return ToolCall(name="ipython", arguments={"code": code})


async def test_a_prompt_streams_its_events_and_the_session_answers_reads(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[ipython("print(6 * 7)")]), ScriptedTurn(blocks=[Text(text="it is 42")]))
    async with rpc_process(agent_dir, *AGENT, cwd=tmp_path) as rpc:
        assert await rpc.ok({"type": "prompt", "message": "hi"}) == {}
        (end,) = await rpc.wait_for_event("agent_end")
        state = await rpc.ok({"type": "get_state"})
        messages = await rpc.ok({"type": "get_messages"})
    assert end["messages"][-1]["content"] == [{"type": "text", "text": "it is 42"}]
    (started,) = rpc.events("tool_execution_start")
    assert started["toolName"] == "ipython" and started["args"] == {"code": "print(6 * 7)"}
    (ended,) = rpc.events("tool_execution_end")
    assert "42" in json.dumps(ended["result"])
    deltas = [
        e["assistantMessageEvent"]["delta"]
        for e in rpc.events("message_update")
        if "delta" in e["assistantMessageEvent"]
    ]
    assert "".join(deltas).endswith("it is 42")
    assert state["cwd"] == str(tmp_path) and state["isStreaming"] is False
    assert state["model"] == {"provider": "scripted", "id": "m1"}
    assert [m["role"] for m in messages["messages"]] == ["user", "assistant", "toolResult", "assistant"]
    assert len(messages["entryIds"]) == 4


def waits_for(go: Path) -> str:
    """Code that runs until the test creates `go` (the run stays active until then)."""
    return f"import os, time\nwhile not os.path.exists({str(go)!r}):\n    time.sleep(0.02)\nprint('went')"


def user_texts(body: object) -> list[str]:
    """The user messages' texts of a request to Anthropic's API."""
    texts = []
    for message in body["messages"]:  # type: ignore[index]
        if message["role"] != "user":
            continue
        content = message["content"]
        blocks = [content] if isinstance(content, str) else [b.get("text", "") for b in content if b["type"] == "text"]
        texts.extend(blocks)
    return texts


async def test_messages_sent_while_a_run_is_going_are_steered_or_queued(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    llm.enqueue(
        ScriptedTurn(blocks=[ipython(waits_for(go))]),
        *(ScriptedTurn(blocks=[Text(text=f"answer {n}")]) for n in range(4)),
    )
    async with rpc_process(agent_dir, *AGENT, cwd=tmp_path) as rpc:
        await rpc.ok({"type": "prompt", "message": "wait"})
        await rpc.wait_for_event("tool_execution_start")
        busy = await rpc.call({"type": "prompt", "message": "no behaviour"})
        steered = await rpc.ok({"type": "prompt", "message": "steer one", "streamingBehavior": "steer"})
        queued = await rpc.ok({"type": "prompt", "message": "later one", "streamingBehavior": "followUp"})
        assert await rpc.ok({"type": "steer", "message": "steer two"}) == {"queued": "steer"}
        assert await rpc.ok({"type": "follow_up", "message": "later two"}) == {"queued": "follow_up"}
        state = await rpc.ok({"type": "get_state"})
        go.write_text("")
        await rpc.wait_for_event("agent_end")
    assert busy["success"] is False and "a run is going" in busy["error"]
    assert (steered, queued) == ({"queued": "steer"}, {"queued": "follow_up"})
    assert state["isStreaming"] is True
    assert state["steering"] == ["steer one", "steer two"] and state["followUp"] == ["later one", "later two"]
    sent = user_texts(llm.requests[-1].body)
    assert [t for t in sent if t != "wait"] == ["steer one", "steer two", "later one", "later two"]
    assert "no behaviour" not in json.dumps([r.body for r in llm.requests])


async def test_abort_stops_the_running_turn(agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path) -> None:
    marker = tmp_path / "after.txt"
    code = f"import time\nprint('started', flush=True)\ntime.sleep(120)\nopen({str(marker)!r}, 'w').write('late')"
    llm.enqueue(ScriptedTurn(blocks=[ipython(code)]), ScriptedTurn(blocks=[Text(text="never asked for")]))
    async with rpc_process(agent_dir, *AGENT, cwd=tmp_path) as rpc:
        await rpc.ok({"type": "prompt", "message": "sleep"})
        await rpc.wait_for(
            lambda: "started" in json.dumps([e["partialResult"] for e in rpc.events("tool_execution_update")])
        )
        assert await rpc.ok({"type": "abort"}) == {"ok": True}
        (end,) = await rpc.wait_for_event("agent_end")
        state = await rpc.ok({"type": "get_state"})
    result = end["messages"][-1]
    assert result["role"] == "toolResult" and result["isError"] is True
    assert "started" in json.dumps(result["content"])
    assert state["isStreaming"] is False
    assert len(llm.requests) == 1 and not marker.exists()


def answer(question: dict[str, object], option: str) -> dict[str, object]:
    return {
        "type": "answer_question",
        "questionId": question["id"],
        "answer": {"kind": "select", "optionIds": [option]},
    }


async def test_an_approval_is_a_question_event_the_client_answers(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    refused, allowed = tmp_path / "refused.txt", tmp_path / "allowed.txt"
    llm.enqueue(
        ScriptedTurn(blocks=[ipython(f"open({str(refused)!r}, 'w').write('ran')")]),
        ScriptedTurn(blocks=[Text(text="I was not allowed")]),
        ScriptedTurn(blocks=[ipython(f"open({str(allowed)!r}, 'w').write('ran')")]),
        ScriptedTurn(blocks=[Text(text="done")]),
    )
    async with rpc_process(agent_dir, *AGENT, "--permission-mode", "ask", cwd=tmp_path) as rpc:
        await rpc.ok({"type": "prompt", "message": "write one"})
        (asked,) = await rpc.wait_for_event("question_asked")
        question = asked["question"]
        assert await rpc.ok(answer(question, "reject_once")) == {"ok": True}
        await rpc.wait_for_event("agent_end")
        again = await rpc.call(answer(question, "allow_once"))
        await rpc.ok({"type": "prompt", "message": "write the other"})
        (_, asked) = await rpc.wait_for_event("question_asked", 2)
        await rpc.ok(answer(asked["question"], "allow_once"))
        await rpc.wait_for_event("agent_end", 2)
    started = rpc.events("tool_execution_start")[0]
    assert question["kind"] == "select" and question["toolCallId"] == started["toolCallId"]
    assert [o["id"] for o in question["options"]] == ["allow_once", "allow_always", "reject_once"]
    assert rpc.events("question_resolved")[0]["answer"] == {"kind": "select", "optionIds": ["reject_once"]}
    assert rpc.events("tool_execution_end")[0]["isError"] is True
    assert not refused.exists()
    assert "did not run" in json.dumps(llm.requests[1].body["messages"][-1])  # type: ignore[index]
    assert again["success"] is False and "not pending" in again["error"]
    assert allowed.read_text() == "ran"


async def test_bad_lines_get_an_error_each_and_the_process_keeps_serving(agent_dir: Path, tmp_path: Path) -> None:
    async with rpc_process(agent_dir, *AGENT, cwd=tmp_path) as rpc:
        for line in (
            b"this is not json\n",
            b'["get_state"]\n',
            b"\xff\xfe\n",
            b'{"id": "a"}\n',
            b'{"id": "b", "type": "reboot"}\n',
            b'{"id": "c", "type": "prompt"}\n',
            b'{"id": "d", "type": "prompt", "message": "x", "streamingBehavior": "sideways"}\n',
            b'{"id": "e", "type": "set_model", "provider": "scripted"}\n',
            b'{"id": {"no": 1}, "type": "get_state"}\n',
            b"\n",
            b'{"id": 7, "type": "answer_question", "questionId": "q-none", "answer": null}\n',
        ):
            await rpc.send_line(line)
        await rpc.wait_for(lambda: len(rpc.responses()) == 10)
        state = await rpc.ok({"type": "get_state"})
    errors = rpc.responses()[:10]
    assert [e["success"] for e in errors] == [False] * 10
    assert [e.get("id") for e in errors] == [None, None, None, "a", "b", "c", "d", "e", None, 7]
    assert [e["command"] for e in errors] == ["parse"] * 4 + ["reboot", "prompt", "prompt", "set_model", "parse"] + [
        "answer_question"
    ]
    said = [e["error"] for e in errors]
    assert said[0].startswith("not JSON") and said[2].startswith("not JSON")
    assert "a command is a JSON object" in said[1]
    assert "type: missing" in said[3]
    assert "unknown command 'reboot'" in said[4] and "get_state" in said[4]
    assert said[5] == "message: field required"
    assert said[6].startswith("streamingBehavior: input should be 'steer' or 'follow_up'")
    assert said[7] == "modelId: field required"
    assert "id: a string or an integer" in said[8]
    assert "q-none is not pending" in said[9]
    assert state["cwd"] == str(tmp_path)
    assert all("data" not in e for e in errors)


async def test_end_of_input_lets_the_running_turn_finish_then_exits(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    marker = tmp_path / "ran.txt"
    llm.enqueue(
        ScriptedTurn(blocks=[ipython(f"open({str(marker)!r}, 'w').write('ran')")]),
        ScriptedTurn(blocks=[Text(text="finished after stdin ended")]),
    )
    async with rpc_process(agent_dir, *AGENT, cwd=tmp_path) as rpc:
        await rpc.send({"type": "prompt", "message": "go"})
        code = await rpc.close_stdin()
    assert code == 0
    (end,) = rpc.events("agent_end")
    assert end["messages"][-1]["content"] == [{"type": "text", "text": "finished after stdin ended"}]
    assert marker.read_text() == "ran"
    assert rpc.responses()[0]["success"] is True


async def test_end_of_input_declines_an_approval_nobody_can_answer(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    marker = tmp_path / "ran.txt"
    llm.enqueue(
        ScriptedTurn(blocks=[ipython(f"open({str(marker)!r}, 'w').write('ran')")]),
        ScriptedTurn(blocks=[Text(text="not allowed")]),
    )
    async with rpc_process(agent_dir, *AGENT, "--permission-mode", "ask", cwd=tmp_path) as rpc:
        await rpc.ok({"type": "prompt", "message": "go"})
        await rpc.wait_for_event("question_asked")
        code = await rpc.close_stdin()
    assert code == 0
    (resolved,) = rpc.events("question_resolved")
    assert resolved.get("answer") is None
    assert rpc.events("tool_execution_end")[0]["isError"] is True
    assert rpc.events("agent_end")[0]["messages"][-1]["content"] == [{"type": "text", "text": "not allowed"}]
    assert not marker.exists()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_aborts_the_running_turn_and_ends_the_process(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path, signum: signal.Signals
) -> None:
    marker = tmp_path / "after.txt"
    code = f"import time\nprint('started', flush=True)\ntime.sleep(120)\nopen({str(marker)!r}, 'w').write('late')"
    llm.enqueue(ScriptedTurn(blocks=[ipython(code)]), ScriptedTurn(blocks=[Text(text="never asked for")]))
    async with rpc_process(agent_dir, *AGENT, cwd=tmp_path) as rpc:
        await rpc.ok({"type": "prompt", "message": "sleep"})
        await rpc.wait_for(
            lambda: "started" in json.dumps([e["partialResult"] for e in rpc.events("tool_execution_update")])
        )
        rpc.process.send_signal(signum)
        exit_code = await rpc.exited()
    assert exit_code == 128 + signum
    (end,) = rpc.events("agent_end")  # written before the process ended
    assert end["messages"][-1]["isError"] is True
    assert len(llm.requests) == 1 and not marker.exists()


async def test_the_models_question_is_an_event_the_client_answers_with_text(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ask", arguments={"question": "Which file?", "kind": "input"})]),
        ScriptedTurn(blocks=[Text(text="thanks")]),
    )
    async with rpc_process(agent_dir, *AGENT, "--tools", "ipython", cwd=tmp_path) as rpc:
        await rpc.ok({"type": "prompt", "message": "ask me"})
        (asked,) = await rpc.wait_for_event("question_asked")
        question = asked["question"]
        reply = {"kind": "input", "text": "data.csv"}
        await rpc.ok({"type": "answer_question", "questionId": question["id"], "answer": reply})
        await rpc.wait_for_event("agent_end")
    assert (question["kind"], question["title"]) == ("input", "Which file?")
    assert "data.csv" in json.dumps(llm.requests[-1].body["messages"][-1])  # type: ignore[index]
