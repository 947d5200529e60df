"""`jupyter prime --mode acp`: an editor's view, through the `agent-client-protocol` package's client side,
of a subprocess running sessions against the scripted provider."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import acp
import pytest
from acp import schema
from kit.acp_client import WAIT_S, Recorder, acp_agent

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]  # `jupyter prime` runs as a subprocess

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
AGENT = ("--mode", "acp", "--model", "scripted/m1")


def ipython(code: str) -> ToolCall:
    return ToolCall(name="ipython", arguments={"code": code})


async def test_an_ipython_call_arrives_as_an_execute_tool_call_with_its_output(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[ipython("print(6 * 7)")]), ScriptedTurn(blocks=[Text(text="it is 42")]))
    client = Recorder()
    async with acp_agent(agent_dir, client, *AGENT) as conn:
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        assert session.modes is not None
        assert [m.id for m in session.modes.available_modes] == ["ask", "accept-edits", "plan", "auto"]
        assert session.modes.current_mode_id == "auto"  # the agent home's settings.json
        done = await asyncio.wait_for(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("hi")]), WAIT_S)
        assert done.stop_reason == "end_turn"
        await client.wait_for(lambda: bool(client.of("available_commands_update")))
    (call,) = client.of("tool_call")
    assert call.kind == "execute" and call.raw_input == {"code": "print(6 * 7)"}
    output = client.tool_update(call.tool_call_id, "completed")
    assert "42" in "".join(c.content.text for c in output.content)
    assert client.agent_text() == "it is 42"
    commands = {c.name for c in client.of("available_commands_update")[0].available_commands}
    assert {"model", "mode", "compact"} <= commands
    (usage,) = client.of("usage_update")
    assert usage.size == 200000 and usage.used > 0
    assert str(tmp_path) in json.dumps(llm.requests[0].body)  # the session runs in the client's cwd


async def test_a_rejected_approval_in_ask_mode_never_runs_the_code(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    marker = tmp_path / "ran.txt"
    code = f"open({str(marker)!r}, 'w').write('ran')"
    llm.enqueue(ScriptedTurn(blocks=[ipython(code)]), ScriptedTurn(blocks=[Text(text="I was not allowed")]))
    client = Recorder(answer="reject_once")
    async with acp_agent(agent_dir, client, *AGENT) as conn:
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="ask")
        await client.wait_for(lambda: bool(client.of("current_mode_update")))
        done = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[acp.text_block("write it")]), WAIT_S
        )
    assert done.stop_reason == "end_turn"
    assert client.of("current_mode_update")[0].current_mode_id == "ask"
    (call,) = client.of("tool_call")
    (asked,) = client.permission_requests
    assert asked.tool_call.tool_call_id == call.tool_call_id and asked.tool_call.kind == "execute"
    assert [(o.option_id, o.kind) for o in asked.options] == [
        ("allow_once", "allow_once"),
        ("allow_always", "allow_always"),
        ("reject_once", "reject_once"),
    ]
    client.tool_update(call.tool_call_id, "failed")
    assert not marker.exists()
    assert "did not run" in json.dumps(llm.requests[-1].body["messages"][-1])  # type: ignore[index]


async def test_cancel_mid_run_ends_the_prompt_as_cancelled(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    marker = tmp_path / "after.txt"
    code = f"import time\ntime.sleep(120)\nopen({str(marker)!r}, 'w').write('late')"
    llm.enqueue(ScriptedTurn(blocks=[ipython(code)]), ScriptedTurn(blocks=[Text(text="never asked for")]))
    client = Recorder()
    async with acp_agent(agent_dir, client, *AGENT) as conn:
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        running = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("sleep")]))
        await client.wait_for(lambda: bool(client.of("tool_call")))
        await conn.cancel(session_id=session.session_id)
        done = await asyncio.wait_for(running, WAIT_S)
    assert done.stop_reason == "cancelled"
    assert len(llm.requests) == 1 and not marker.exists()


async def test_session_load_replays_the_session_in_a_fresh_process_and_continues_it(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[ipython("x = 20 + 1\nprint(x)")]), ScriptedTurn(blocks=[Text(text="x is 21")]))
    first = Recorder()
    async with acp_agent(agent_dir, first, *AGENT) as conn:
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        await asyncio.wait_for(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("set x")]), WAIT_S)
    (call,) = first.of("tool_call")
    llm.enqueue(ScriptedTurn(blocks=[Text(text="still here")]))
    again = Recorder()
    async with acp_agent(agent_dir, again, *AGENT) as conn:
        listed = await conn.list_sessions(cwd=str(tmp_path))
        assert session.session_id in [s.session_id for s in listed.sessions]
        loaded = await conn.load_session(cwd=str(tmp_path), session_id=session.session_id, mcp_servers=[])
        assert loaded is not None and loaded.modes is not None
        replay = list(again.updates)
        done = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[acp.text_block("and now?")]), WAIT_S
        )
    assert done.stop_reason == "end_turn"
    kinds = [u.session_update for u in replay if u.session_update != "available_commands_update"]
    assert kinds == ["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]
    assert replay[0].content.text == "set x"
    replayed_call = next(u for u in replay if u.session_update == "tool_call")
    assert replayed_call.tool_call_id == call.tool_call_id and replayed_call.kind == "execute"
    assert "21" in next(u for u in replay if u.session_update == "tool_call_update").content[0].content.text
    assert again.agent_text() == "x is 21still here"
    sent = json.dumps(llm.requests[-1].body)
    assert "set x" in sent and "x is 21" in sent  # the continued session holds the first turn


async def test_an_image_output_travels_as_image_content(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    code = (
        f"import base64\nfrom IPython.display import Image, display\ndisplay(Image(data=base64.b64decode({PIXEL!r})))"
    )
    llm.enqueue(ScriptedTurn(blocks=[ipython(code)]), ScriptedTurn(blocks=[Text(text="a pixel")]))
    client = Recorder()
    async with acp_agent(agent_dir, client, *AGENT) as conn:
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        await asyncio.wait_for(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("draw")]), WAIT_S)
    (call,) = client.of("tool_call")
    images = [c.content for c in client.tool_update(call.tool_call_id, "completed").content]
    images = [c for c in images if isinstance(c, schema.ImageContentBlock)]
    assert [(c.mime_type, c.data) for c in images] == [("image/png", PIXEL)]


async def test_max_tokens_and_an_unknown_mode(agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="cut sho")], stop="length"))
    client = Recorder()
    async with acp_agent(agent_dir, client, *AGENT) as conn:
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        done = await asyncio.wait_for(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("go")]), WAIT_S)
        assert done.stop_reason == "max_tokens"
        with pytest.raises(acp.RequestError) as refused:
            await conn.set_session_mode(session_id=session.session_id, mode_id="yolo")
    assert "yolo" in json.dumps(refused.value.data)


async def test_a_write_arrives_as_an_edit_with_its_diff(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    target = tmp_path / "notes.txt"
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="write", arguments={"path": str(target), "content": "hello\n"})]),
        ScriptedTurn(blocks=[Text(text="written")]),
    )
    client = Recorder()
    async with acp_agent(agent_dir, client, *AGENT, "--tools", "write") as conn:
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        await asyncio.wait_for(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("write")]), WAIT_S)
    (call,) = client.of("tool_call")
    assert call.kind == "edit" and [loc.path for loc in call.locations] == [str(target)]
    (diff,) = call.content
    assert (diff.type, diff.path, diff.new_text, diff.old_text) == ("diff", str(target), "hello\n", None)
    client.tool_update(call.tool_call_id, "completed")
    assert target.read_text() == "hello\n"  # the agent's own tool wrote it


async def test_a_mode_command_switches_the_mode_without_asking_the_model(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    client = Recorder()
    async with acp_agent(agent_dir, client, *AGENT) as conn:
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        done = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[acp.text_block("/mode plan")]), WAIT_S
        )
        await client.wait_for(lambda: bool(client.of("current_mode_update")))
    assert done.stop_reason == "end_turn" and llm.requests == []
    assert client.of("current_mode_update")[0].current_mode_id == "plan"
    assert client.agent_text() == "permission mode: plan"
