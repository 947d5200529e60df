"""`jupyter prime --mode rpc`: a program's view of a subprocess driven by JSON lines on stdin, running
sessions against the scripted provider."""

from __future__ import annotations

import json
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
