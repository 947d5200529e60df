"""`jupyter prime attach --mode acp`: an editor drives a session living in a running Jupyter server, while
the panel's event stream (`chat/events`) follows it live and the panel prompts the same session."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path

import acp
import pytest
from kit.acp_client import WAIT_S, Recorder, acp_agent
from kit.server import PrimeClient, own_jupyter, text_of

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.jupyter_process import ROOT, TOKEN, JupyterProcess, write_agent_dir

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]  # `jupyter prime attach` and `jupyter server` subprocesses


def client_env(runtime_dir: Path) -> dict[str, str]:
    """An editor's environment: no API keys, no token; the server found through Jupyter's runtime dir."""
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "JUPYTER_TOKEN"}
    environment.update(JUPYTER_RUNTIME_DIR=str(runtime_dir), PYTHONPATH=str(ROOT))
    return environment


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    yield from own_jupyter(tmp_path_factory, "acp-attach")


@pytest.fixture
def server(jupyter: JupyterProcess, llm: ScriptedLLMServer) -> JupyterProcess:
    write_agent_dir(jupyter.agent_dir, llm)
    return jupyter


async def test_an_editor_and_the_panel_work_on_one_session(server: JupyterProcess, llm: ScriptedLLMServer) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo from-the-editor"})]),
        ScriptedTurn(blocks=[Text(text="ran it", chunks=2)]),
        ScriptedTurn(blocks=[Text(text="hello panel")]),
    )
    prime = PrimeClient(server.endpoint.url + "prime/api/", {"Authorization": f"token {TOKEN}"})
    work = server.root_dir / "work"
    client = Recorder()
    env = client_env(server.runtime_dir)
    async with acp_agent(
        server.agent_dir, client, "attach", "--mode", "acp", "--model", "scripted/m1", env=env, cwd=work
    ) as conn:
        session = await conn.new_session(cwd=str(work), mcp_servers=[])
        async with prime.events(session.session_id) as sse:
            done = await asyncio.wait_for(
                conn.prompt(session_id=session.session_id, prompt=[acp.text_block("run it")]), WAIT_S
            )
            followed = await sse.until(lambda f: f["type"] == "done", wait_s=WAIT_S)
        assert done.stop_reason == "end_turn"
        (call,) = client.of("tool_call")
        assert call.kind == "execute" and call.title == "$ echo from-the-editor"
        assert "from-the-editor" in client.tool_update(call.tool_call_id, "completed").content[0].content.text
        frames = [frame for _, frame in followed]
        tools = [f["part"] for f in frames if f["type"] == "tool"]
        assert tools and tools[-1]["toolCallId"] == call.tool_call_id and tools[-1]["state"] == "output-available"
        assert text_of(frames) == "ran it" == client.agent_text()
        await prime.turn(session.session_id, "from the panel")  # the panel prompts the same session
        await client.wait_for(lambda: "hello panel" in client.agent_text())
    said = [u.content.text for u in client.of("user_message_chunk")]
    assert said == ["from the panel"]
    assert "run it" in json.dumps(llm.requests[-1].body) and "from the panel" in json.dumps(llm.requests[-1].body)
