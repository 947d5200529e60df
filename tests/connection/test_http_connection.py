"""`HttpAgentConnection` beyond the shared suite: what only a remote connection does, against a real server."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from kit.remote import M1, attach, collect, session_events

from prime_jupyter.connection.http import HttpAgentConnection
from prime_jupyter.connection.types import (
    AgentConnectionUnsupportedError,
    Closed,
    SessionEventReceived,
)
from prime_jupyter.errors import BusyError, PrimeError, SessionNotFoundError
from prime_jupyter.protocol.events import AgentEnd, MessageUpdate
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.jupyter_process import ROOT, TOKEN, JupyterProcess, write_agent_dir


@pytest.mark.asyncio
async def test_process_local_members_raise_with_a_feature_name(
    jupyter: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    conn = await attach(jupyter, llm, tmp_path)
    try:
        calls: dict[str, Callable[[], object]] = {
            "get_abort_signal": conn.get_abort_signal,
            "get_system_prompt_sync": conn.get_system_prompt_sync,
            "extensions.get_argument_completions": lambda: conn.extensions.get_argument_completions("/x", ""),
            "extensions.get_command_diagnostics": conn.extensions.get_command_diagnostics,
            "extensions.get_shortcuts": conn.extensions.get_shortcuts,
            "extensions.get_message_renderer": lambda: conn.extensions.get_message_renderer("t"),
            "extensions.get_tool_renderer": lambda: conn.extensions.get_tool_renderer("bash"),
            "extensions.bind_extensions": lambda: conn.extensions.bind_extensions({}),
        }
        for feature, call in calls.items():
            with pytest.raises(AgentConnectionUnsupportedError) as raised:
                call()
            assert raised.value.feature == feature and "process-local" in str(raised.value)
    finally:
        await conn.dispose()


def test_the_http_connection_imports_no_runtime_and_no_server() -> None:
    code = (
        "import sys, prime_jupyter.connection.http;"
        "print(sorted(m for m in ('prime_jupyter.runtime', 'prime_jupyter.server', 'jupyter_server', 'tornado',"
        " 'anthropic', 'openai') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.asyncio
async def test_attaching_mid_answer_continues_the_streaming_message(
    jupyter: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    answer = "one two three four five six seven eight nine ten eleven twelve"
    llm.enqueue(ScriptedTurn(blocks=[Text(text=answer, chunks=12)], chunk_delay_s=0.1))
    first = await attach(jupyter, llm, tmp_path)
    first_seen = collect(first)
    await first.prompt("count")
    await first_seen.until(lambda: sum(isinstance(e, MessageUpdate) for e in session_events(first_seen)) >= 3)
    second = await HttpAgentConnection.connect(jupyter.endpoint, first.session_id[:18])
    snap = await second.get_snapshot()
    second_seen = collect(second)
    try:
        assert second.session_id == first.session_id
        assert snap.state.is_streaming and snap.streaming_message is not None
        await second.wait_for_idle()
        updates = [e for e in session_events(second_seen) if isinstance(e, MessageUpdate)]
        assert updates and updates[-1].message.text() == answer
        assert sum(isinstance(e, AgentEnd) for e in session_events(second_seen)) == 1
        whole = await second.get_snapshot(tail=1)  # the tail hint is not sent: the whole branch, nothing left out
        assert len(whole.messages) == 2 and whole.earlier_messages == 0
        seqs = [item.seq for item in second_seen if isinstance(item, SessionEventReceived)]
        assert all(seq is not None for seq in seqs) and seqs == sorted(set(seqs))  # each event's place in the log
        assert seqs[-1] <= whole.cursor  # the snapshot after them holds them
    finally:
        await first.dispose()
        await second.dispose()


@pytest.mark.asyncio
async def test_the_session_keeps_running_when_its_client_goes_away(
    jupyter: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "sleep 0.5; echo slept"})]),
        ScriptedTurn(blocks=[Text(text="done sleeping")]),
    )
    first = await attach(jupyter, llm, tmp_path)
    session_id = first.session_id
    await first.prompt("sleep a bit")
    await first.dispose()
    later = await HttpAgentConnection.connect(jupyter.endpoint, session_id)
    try:
        await later.wait_for_idle()
        messages = (await later.get_messages()).messages
        assert messages[-1].text() == "done sleeping" and "slept" in messages[-2].text()
    finally:
        await later.dispose()


@pytest.mark.asyncio
async def test_refusals_come_back_as_the_errors_of_the_tree(
    jupyter: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "sleep 1"})]), ScriptedTurn())
    conn = await attach(jupyter, llm, tmp_path)
    try:
        await conn.prompt("go")
        with pytest.raises(BusyError):
            await conn.prompt("again")
        await conn.abort()
        with pytest.raises(PrimeError, match="thinking level"):
            await conn.set_thinking_level("enormous")
        with pytest.raises(SessionNotFoundError):
            await conn.switch_session("ffffffffffffffffff")
        assert not await conn.answer_question("no-such-question", None)
    finally:
        await conn.dispose()
    with pytest.raises(SessionNotFoundError):
        await HttpAgentConnection.connect(jupyter.endpoint, "ffffffffffffffffff")


@pytest.mark.asyncio
async def test_routes_refuse_bad_requests_with_an_error_body(jupyter: JupyterProcess) -> None:
    url = jupyter.endpoint.url + "prime/api/connection/"
    async with httpx.AsyncClient(headers={"Authorization": f"token {TOKEN}"}) as client:
        no_command = await client.post(url + "command", json={"sessionId": "abc"})
        assert no_command.status_code == 400 and no_command.json()["message"].startswith("command")
        unknown = await client.post(url + "command", json={"sessionId": "abc", "command": {"type": "fly"}})
        assert unknown.status_code == 400 and unknown.json()["reason"] == "invalid"
        missing = await client.post(url + "command", json={"sessionId": "abc", "command": {"type": "get_state"}})
        assert missing.status_code == 404 and missing.json()["reason"] == "not-found"
        no_version = await client.post(url + "attach", json={})
        assert no_version.status_code == 400 and "clientProtocolVersion" in no_version.json()["message"]
        bad_cursor = await client.get(url + "events", params={"sessionId": "abc", "cursor": "x"})
        assert bad_cursor.status_code == 400


@pytest.mark.asyncio
async def test_every_connection_route_refuses_requests_without_the_token(jupyter: JupyterProcess) -> None:
    url = jupyter.endpoint.url + "prime/api/connection/"
    body = json.dumps({"clientProtocolVersion": 1, "sessionId": "abc"})
    async with httpx.AsyncClient() as client:
        routes = (("POST", "attach"), ("POST", "command"), ("POST", "wait"), ("GET", "events"), ("POST", "run"))
        for method, path in routes:
            response = await client.request(method, url + path, content=body if method == "POST" else None)
            assert response.status_code == 403, (method, path, response.status_code)


@pytest.mark.asyncio
async def test_a_unix_socket_server(llm: ScriptedLLMServer, tmp_path: Path) -> None:
    home = tmp_path / "agent"
    write_agent_dir(home, llm)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="over the socket", chunks=2)]))
    with JupyterProcess(home, tmp_path, tmp_path / "runtime", sock=tmp_path / "jp.sock") as server:
        conn = await HttpAgentConnection.connect(server.endpoint, cwd=str(tmp_path), model=M1)
        seen = collect(conn)
        try:
            await conn.prompt("hello")
            await conn.wait_for_idle()
            assert (await conn.get_messages()).messages[-1].text() == "over the socket"
            assert isinstance(session_events(seen)[-1], AgentEnd)
        finally:
            await conn.dispose()


@pytest.mark.asyncio
async def test_a_session_deleted_elsewhere_closes_the_connection(
    jupyter: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    doomed = await attach(jupyter, llm, tmp_path)
    seen = collect(doomed)
    other = await attach(jupyter, llm, tmp_path)
    try:
        await other.delete_session(doomed.session_id)
        await seen.until(lambda: any(isinstance(e, Closed) for e in seen))
        closed = next(e for e in seen if isinstance(e, Closed))
        assert closed.error is not None and doomed.session_id in closed.error
        with pytest.raises(SessionNotFoundError):
            await doomed.get_state()
        with pytest.raises(PrimeError, match="attached here"):
            await other.delete_session(other.session_id)
    finally:
        await doomed.dispose()
        await other.dispose()
