"""`jupyter prime attach --mode rpc`: a program drives a session living in a running Jupyter server with
JSON lines, while the panel's event stream (`chat/events`) follows it and the panel prompts it too."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from kit.rpc_client import WAIT_S, RpcClient, rpc_process
from kit.server import PrimeClient, own_jupyter, text_of

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.jupyter_process import ROOT, TOKEN, JupyterProcess, write_agent_dir

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]  # `jupyter prime attach` and `jupyter server` subprocesses


def client_env(runtime_dir: Path) -> dict[str, str]:
    """A program's environment: no API keys, no token; the server found through Jupyter's runtime dir."""
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "JUPYTER_TOKEN"}
    environment.update(JUPYTER_RUNTIME_DIR=str(runtime_dir), PYTHONPATH=str(ROOT))
    return environment


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    yield from own_jupyter(tmp_path_factory, "rpc-attach")


@pytest.fixture
def server(jupyter: JupyterProcess, llm: ScriptedLLMServer) -> JupyterProcess:
    write_agent_dir(jupyter.agent_dir, llm)
    return jupyter


def attach(server: JupyterProcess, *args: str) -> AbstractAsyncContextManager[RpcClient]:
    return rpc_process(
        server.agent_dir,
        "attach",
        "--mode",
        "rpc",
        "--model",
        "scripted/m1",
        *args,
        env=client_env(server.runtime_dir),
        cwd=server.root_dir / "work",
    )


async def test_a_program_and_the_panel_work_on_one_session(server: JupyterProcess, llm: ScriptedLLMServer) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo from-the-program"})]),
        ScriptedTurn(blocks=[Text(text="ran it", chunks=2)]),
        ScriptedTurn(blocks=[Text(text="hello panel")]),
    )
    prime = PrimeClient(server.endpoint.url + "prime/api/", {"Authorization": f"token {TOKEN}"})
    async with attach(server) as rpc:
        state = await rpc.ok({"type": "get_state"})
        async with prime.events(state["sessionId"]) as sse:
            await rpc.ok({"type": "prompt", "message": "run it"})
            followed = await sse.until(lambda f: f["type"] == "done", wait_s=WAIT_S)
        await rpc.wait_for_event("agent_end")
        await prime.turn(state["sessionId"], "from the panel")  # the panel prompts the same session
        await rpc.wait_for_event("agent_end", 2)
        code = await rpc.close_stdin()
    assert code == 0
    assert state["cwd"] == str(server.root_dir / "work")
    (ended,) = rpc.events("tool_execution_end")
    assert "from-the-program" in json.dumps(ended["result"])
    assert text_of([frame for _, frame in followed]) == "ran it"
    users = [e["message"]["content"] for e in rpc.events("message_start") if e["message"]["role"] == "user"]
    assert users == ["run it", "from the panel"]
    assert rpc.events("agent_end")[-1]["messages"][-1]["content"] == [{"type": "text", "text": "hello panel"}]


async def test_an_approval_pending_in_the_server_is_answered_by_the_next_program_attached(
    server: JupyterProcess, llm: ScriptedLLMServer
) -> None:
    marker = server.root_dir / "work" / "refused.txt"
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": f"touch {marker}"})]),
        ScriptedTurn(blocks=[Text(text="not allowed")]),
    )
    async with attach(server, "--permission-mode", "ask") as first:
        session_id = (await first.ok({"type": "get_state"}))["sessionId"]
        await first.ok({"type": "prompt", "message": "touch it"})
        (asked,) = await first.wait_for_event("question_asked")
        assert await first.close_stdin() == 0  # the question stays pending in the server
    async with attach(server, "--session", session_id) as second:
        (announced,) = await second.wait_for_event("question_asked")
        answer = {"kind": "select", "optionIds": ["reject_once"]}
        await second.ok({"type": "answer_question", "questionId": announced["question"]["id"], "answer": answer})
        (end,) = await second.wait_for_event("agent_end")
    assert announced["question"] == asked["question"]
    assert end["messages"][-1]["content"] == [{"type": "text", "text": "not allowed"}]
    assert not marker.exists()


async def test_the_end_of_input_leaves_the_run_going_in_the_server(
    server: JupyterProcess, llm: ScriptedLLMServer
) -> None:
    go = server.root_dir / "work" / "go"
    llm.enqueue(
        ScriptedTurn(
            blocks=[ToolCall(name="bash", arguments={"command": f"while [ ! -e {go} ]; do sleep 0.05; done"})]
        ),
        ScriptedTurn(blocks=[Text(text="went on without the program")]),
    )
    prime = PrimeClient(server.endpoint.url + "prime/api/", {"Authorization": f"token {TOKEN}"})
    async with attach(server) as rpc:
        state = await rpc.ok({"type": "get_state"})
        await rpc.ok({"type": "prompt", "message": "wait for go"})
        await rpc.wait_for_event("tool_execution_start")
        code = await rpc.close_stdin()  # the run still waits for `go`: the process did not wait for it
        assert code == 0 and not rpc.events("agent_end")
        async with prime.events(state["sessionId"]) as sse:
            go.write_text("")
            followed = await sse.until(lambda f: f["type"] == "done", wait_s=WAIT_S)
    assert "went on without the program" in text_of([frame for _, frame in followed])
