"""MCP servers in process, the real SDK at both ends: sessions built by the runtime with `mcp.json` on
disk, the servers the tests ship (`mcp_servers/notes_server.py`, over stdio and over streamable HTTP),
driven by the scripted provider through the real anthropic wire format. A tool the model calls with its
schema and whose text, image and error results reach it through the output budget; the permission mode
asks for it; a server that crashes mid-session (reported, restarted, the next turn works); one slow to
start (the first answer does not wait for it); one that cannot start; many tools behind `mcp_search`;
`/mcp`; where `mcp.json` is read from."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_extension_host import Events, result_text, tool_results  # the extension tests' session kit

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.protocol.events import ToolExecutionEnd
from prime_jupyter.protocol.questions import SelectAnswer
from prime_jupyter.resources.mcp.config import load_mcp_config
from prime_jupyter.resources.mcp.host import McpHost
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.runtime.permissions import PermissionMode
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

SERVER = Path(__file__).resolve().parent / "mcp_servers" / "notes_server.py"
WAIT_S = 60.0
"""A guard against a hang, never a measure: every wait below is on a condition."""


def stdio(*args: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVER), *args]}


def agent_home(tmp_path: Path, llm: ScriptedLLMServer, servers: dict[str, Any]) -> Path:
    home = tmp_path / "agent"
    home.mkdir(parents=True, exist_ok=True)
    model = {"id": "m1", "input": ["text", "image"]}
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k", "models": [model]}
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return home


def make_session(
    tmp_path: Path, home: Path, permission: PermissionMode = "auto", *, interactive: bool = False
) -> AgentSession:
    options = SessionOptions(
        cwd=tmp_path,
        model="scripted/m1",
        tools=["read"],
        agent_dir=home,
        permission_mode=permission,
        interactive=interactive,
    )
    return create_agent_session(options)


async def until(host: McpHost | None, predicate: Callable[[McpHost], bool]) -> None:
    assert host is not None
    await asyncio.wait_for(host.wait_for(predicate), WAIT_S)


def all_ready(host: McpHost) -> bool:
    return all(s.state == "ready" for s in host.status())


def offered(llm: ScriptedLLMServer, request: int = -1) -> dict[str, Any]:
    return {t["name"]: t for t in llm.requests[request].body.get("tools", [])}


def answer_after(*calls: ToolCall) -> tuple[ScriptedTurn, ...]:
    return (*(ScriptedTurn(blocks=[call]) for call in calls), ScriptedTurn(blocks=[Text(text="done")]))


@pytest.mark.asyncio
async def test_a_stdio_servers_tool_reaches_the_model_with_its_schema_and_its_results_come_back(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    session = make_session(tmp_path, agent_home(tmp_path, llm, {"notes": stdio()}))
    session.start_mcp()
    await until(session.mcp, all_ready)
    llm.enqueue(
        *answer_after(
            ToolCall(name="mcp__notes__lookup", arguments={"topic": "deploys"}),
            ToolCall(name="mcp__notes__red_square", arguments={"side": 8}),
            ToolCall(name="mcp__notes__refuse", arguments={"reason": "not today"}),
            ToolCall(name="mcp__notes__big", arguments={"chars": 200_000}),
            ToolCall(name="mcp__notes__lookup", arguments={"topic": 7}),
        )
    )
    try:
        await session.prompt("what do the notes say?")
        tools = offered(llm, 0)
        assert tools["mcp__notes__lookup"]["input_schema"]["required"] == ["topic"]
        assert "Look up the team's note" in tools["mcp__notes__lookup"]["description"]
        lookup, square, refused, big, invalid = tool_results(llm)
        assert "note on deploys: ship on Fridays" in result_text(lookup) and not lookup.get("is_error")
        assert [c["type"] for c in square["content"]] == ["text", "image"]
        assert square["content"][1]["source"]["media_type"] == "image/png"
        assert refused["is_error"] and "refused: not today" in result_text(refused)
        assert "characters omitted" in result_text(big) or len(result_text(big)) < 200_000
        assert invalid["is_error"] and "topic" in result_text(invalid)  # checked against the schema first
    finally:
        await session.dispose()


@pytest.mark.asyncio
async def test_an_mcp_tool_asks_in_ask_mode_and_a_rejection_is_what_the_model_reads(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    session = make_session(tmp_path, agent_home(tmp_path, llm, {"notes": stdio()}), "ask", interactive=True)
    events = Events(session)
    session.start_mcp()
    await until(session.mcp, all_ready)
    llm.enqueue(*answer_after(ToolCall(name="mcp__notes__lookup", arguments={"topic": "x"})))
    try:
        run = asyncio.ensure_future(session.prompt("look it up"))
        question = await asyncio.wait_for(events.questions.get(), WAIT_S)
        assert question.question.tool_call_id is not None and "mcp__notes__lookup" in question.question.title
        session.ui.answer(question.question.id, SelectAnswer(option_ids=["reject_once"]))
        await run
        (result,) = tool_results(llm)
        assert result["is_error"] and "note on" not in result_text(result)
    finally:
        await session.dispose()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def http_server() -> Iterator[str]:
    """The notes server over streamable HTTP, in a subprocess on a local port; its URL once it listens."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "--name", "web", "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):  # until it accepts connections (each try waits up to 0.1 s for it)
            assert process.poll() is None, "the HTTP MCP server exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                process_wait(process, 0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def process_wait(process: subprocess.Popen[bytes], seconds: float) -> None:
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        pass


@pytest.mark.asyncio
async def test_a_streamable_http_servers_tool_is_called_with_the_configured_headers(
    tmp_path: Path, llm: ScriptedLLMServer, http_server: str
) -> None:
    servers = {"web": {"url": http_server, "headers": {"X-Team": "data"}}}
    session = make_session(tmp_path, agent_home(tmp_path, llm, servers))
    session.start_mcp()
    await until(session.mcp, all_ready)
    llm.enqueue(
        *answer_after(
            ToolCall(name="mcp__web__lookup", arguments={"topic": "the wiki"}),
            ToolCall(name="mcp__web__header", arguments={"name": "X-Team"}),
        )
    )
    try:
        await session.prompt("ask the web server")
        assert "mcp__web__lookup" in offered(llm, 0)
        result, header = tool_results(llm)
        assert "note on the wiki: ship on Fridays (from web" in result_text(result)
        assert result_text(header) == "X-Team: data"
        assert session.mcp is not None and session.mcp.status()[0].transport == "http"
    finally:
        await session.dispose()


@pytest.mark.asyncio
async def test_a_server_that_crashes_mid_session_is_reported_restarted_and_the_next_turn_works(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    session = make_session(tmp_path, agent_home(tmp_path, llm, {"notes": stdio(), "other": stdio("--name", "other")}))
    events = Events(session)
    session.start_mcp()
    await until(session.mcp, all_ready)
    first = session.mcp.servers[0].attempts if session.mcp is not None else 0
    llm.enqueue(*answer_after(ToolCall(name="mcp__notes__crash")))
    try:
        await session.prompt("crash it")
        (crashed,) = tool_results(llm)
        assert crashed["is_error"] and "closed the connection" in result_text(crashed)
        await until(session.mcp, lambda h: h.servers[0].attempts > first and all_ready(h))
        assert any("MCP server 'notes' stopped" in n and "retrying" in n for n in events.notices())
        llm.enqueue(
            *answer_after(
                ToolCall(name="mcp__notes__lookup", arguments={"topic": "recovery"}),
                ToolCall(name="mcp__other__lookup", arguments={"topic": "the rest"}),
            )
        )
        await session.prompt("again")
        notes, other = tool_results(llm)[-2:]
        assert "note on recovery" in result_text(notes) and not notes.get("is_error")
        assert "note on the rest" in result_text(other)
    finally:
        await session.dispose()


@pytest.mark.asyncio
async def test_a_slow_server_does_not_hold_up_the_first_answer_and_its_tools_join_when_it_is_up(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    gate = tmp_path / "gate"  # the server waits for this file before it serves
    session = make_session(tmp_path, agent_home(tmp_path, llm, {"slow": stdio("--gate", str(gate))}))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="hello")]))
    try:
        await session.prompt("hi")  # starts the servers, and answers while the slow one cannot be up
        assert session.mcp is not None and session.mcp.status()[0].state == "starting"
        assert llm.requests and not any(name.startswith("mcp__") for name in offered(llm, 0))
        gate.touch()
        await until(session.mcp, all_ready)
        llm.enqueue(*answer_after(ToolCall(name="mcp__slow__lookup", arguments={"topic": "patience"})))
        await session.prompt("now")
        assert "mcp__slow__lookup" in offered(llm, 1)
        assert "note on patience" in result_text(tool_results(llm)[0])
    finally:
        await session.dispose()


@pytest.mark.asyncio
async def test_a_server_that_cannot_start_is_a_notice_and_the_session_works(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    servers = {"missing": {"command": str(tmp_path / "no-such-program")}, "notes": stdio()}
    session = make_session(tmp_path, agent_home(tmp_path, llm, servers))
    events = Events(session)
    session.start_mcp()
    await until(session.mcp, lambda h: h.status()[0].state == "failed" and h.status()[1].state == "ready")
    llm.enqueue(ScriptedTurn(blocks=[Text(text="fine")]))
    try:
        await session.prompt("hi")
        assert any("MCP server 'missing' could not start" in n for n in events.notices())
        assert "mcp__notes__lookup" in offered(llm, 0)
        await session.prompt("/mcp")
        report = events.notices()[-1]
        assert "missing [failed] stdio" in report and "notes [ready] stdio" in report
        assert "mcp__notes__lookup" in report and len(llm.requests) == 1  # /mcp is no turn
    finally:
        await session.dispose()


@pytest.mark.asyncio
async def test_past_the_threshold_the_model_finds_tools_with_mcp_search_and_they_join_the_request(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    session = make_session(tmp_path, agent_home(tmp_path, llm, {"many": stdio("--name", "many", "--tools", "45")}))
    session.start_mcp()
    await until(session.mcp, all_ready)
    llm.enqueue(
        *answer_after(
            ToolCall(name="mcp_search", arguments={"query": "widget number 7"}),
            ToolCall(name="mcp__many__widget_7", arguments={"value": "v"}),
        )
    )
    try:
        await session.prompt("frobnicate with widget 7")
        first, second = offered(llm, 0), offered(llm, 1)
        assert "mcp_search" in first and not any(name.startswith("mcp__") for name in first)
        found, called = tool_results(llm)
        listed = json.loads(result_text(found).split("\n", 1)[1])
        assert listed[0]["name"] == "mcp__many__widget_7" and listed[0]["parameters"]["required"] == ["value"]
        joined = {name for name in second if name.startswith("mcp__")}
        assert joined == {t["name"] for t in listed} and len(joined) < 50
        assert "tool 7 got v" in result_text(called)
    finally:
        await session.dispose()


def test_the_projects_mcp_json_wins_a_name_clash_with_a_diagnostic_and_a_broken_file_is_named(
    tmp_path: Path,
) -> None:
    home, project = tmp_path / "agent", tmp_path / "project"
    (project / ".prime" / "agent").mkdir(parents=True)
    home.mkdir()
    (home / "mcp.json").write_text(
        json.dumps({"mcpServers": {"notes": {"command": "global-notes"}, "web": {"url": "ftp://x"}}})
    )
    (project / ".prime" / "agent" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"notes": {"command": "project-notes", "args": ["-v"], "env": {"A": "1"}}}})
    )
    servers, diagnostics = load_mcp_config(home, project)
    assert [(s.name, s.command, s.args, s.env) for s in servers] == [("notes", "project-notes", ("-v",), {"A": "1"})]
    assert any("'web'" in d and "http://" in d for d in diagnostics)
    assert any("'notes' is also defined" in d and "project's definition is used" in d for d in diagnostics)
    (home / "mcp.json").write_text("{not json")
    servers, diagnostics = load_mcp_config(home, project)
    assert [s.command for s in servers] == ["project-notes"]
    assert diagnostics and str(home / "mcp.json") in diagnostics[0] and "not JSON" in diagnostics[0]


def test_mcp_shows_a_server_without_what_looks_like_its_credentials(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "cli": {"command": "notes", "args": ["--token", "s3cret", "--api-key=k3y", "--dir", "docs"]},
                    "web": {"url": "https://user:pw@example.invalid:8443/mcp?key=k3y", "headers": {"A": "h3ader"}},
                }
            }
        )
    )
    servers, _ = load_mcp_config(tmp_path, tmp_path / "none")
    assert [s.target for s in servers] == [
        "notes --token *** --api-key=*** --dir docs",
        "https://example.invalid:8443/mcp?***",
    ]


@pytest.mark.asyncio
async def test_a_new_session_in_the_same_folder_keeps_the_servers_running_and_their_tools(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = agent_home(tmp_path, llm, {"notes": stdio()})
    options = SessionOptions(cwd=tmp_path, model="scripted/m1", tools=["read"], agent_dir=home, permission_mode="auto")
    connection = InProcessAgentConnection.create(options)
    try:
        host = connection.session.mcp
        await until(host, all_ready)
        assert host is not None
        attempts = host.servers[0].attempts
        await connection.new_session()
        assert connection.session.mcp is host and host.servers[0].attempts == attempts
        llm.enqueue(*answer_after(ToolCall(name="mcp__notes__lookup", arguments={"topic": "handover"})))
        await connection.prompt("still there?")
        await connection.wait_for_idle()
        assert "mcp__notes__lookup" in offered(llm, 0)
        assert "note on handover" in result_text(tool_results(llm)[0])
    finally:
        await connection.dispose()
    assert host.status()[0].state == "stopped"


@pytest.mark.asyncio
async def test_a_server_that_dies_between_calls_is_found_by_its_ping_reported_and_restarted(tmp_path: Path) -> None:
    config, _ = load_mcp_config(write_mcp_json(tmp_path, {"notes": stdio()}), tmp_path)
    notices: list[str] = []
    host = McpHost(config, [], tmp_path, tmp_path / "logs", ping_s=0.05)
    host.on_notice(lambda message, level: notices.append(message))
    host.start()
    host.release()
    try:
        await until(host, all_ready)
        server = host.servers[0]
        first = await server.call("lookup", {"topic": "pid"}, AbortSignal())
        pid = int(first.content[0].text.rsplit("pid ", 1)[1].rstrip(")"))  # type: ignore[union-attr]
        os.kill(pid, signal.SIGKILL)
        await until(host, lambda h: h.servers[0].attempts > 1 and all_ready(h))
        assert any("MCP server 'notes' stopped" in n for n in notices)
        again = await server.call("lookup", {"topic": "pid"}, AbortSignal())
        assert f"pid {pid})" not in again.content[0].text  # type: ignore[union-attr]
    finally:
        await host.close()


def write_mcp_json(folder: Path, servers: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return folder


@pytest.mark.asyncio
async def test_an_abort_stops_a_call_under_way_and_the_server_serves_the_next_one(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    session = make_session(tmp_path, agent_home(tmp_path, llm, {"notes": stdio()}))
    events = Events(session)
    session.start_mcp()
    await until(session.mcp, all_ready)
    never = tmp_path / "never"
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="mcp__notes__hold", arguments={"path": str(never)})]))
    try:
        session.start_prompt("wait for it")
        held = tmp_path / "never.held"  # the server is in the call
        for _ in range(3000):  # until it is, looking every 20 ms
            if held.exists():
                break
            await asyncio.sleep(0.02)
        assert held.exists()
        await session.abort()
        [end] = [e for e in events.all if isinstance(e, ToolExecutionEnd)]
        assert end.is_error and "Aborted" in end.result.content[0].text  # type: ignore[union-attr]
        llm.enqueue(*answer_after(ToolCall(name="mcp__notes__lookup", arguments={"topic": "after"})))
        await session.prompt("and now?")
        assert "note on after" in result_text(tool_results(llm)[-1])
        assert session.mcp is not None and session.mcp.servers[0].attempts == 1  # the same connection
    finally:
        await session.dispose()


@pytest.mark.asyncio
async def test_the_projects_server_runs_on_a_name_clash_and_the_session_says_so(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = agent_home(tmp_path, llm, {"notes": stdio("--name", "global")})
    write_mcp_json(tmp_path / ".prime" / "agent", {"notes": stdio("--name", "project")})
    session = make_session(tmp_path, home)
    events = Events(session)
    session.start_mcp()
    await until(session.mcp, all_ready)
    llm.enqueue(*answer_after(ToolCall(name="mcp__notes__lookup", arguments={"topic": "whose"})))
    try:
        await session.prompt("whose notes?")
        assert "(from project," in result_text(tool_results(llm)[0])
        assert any("'notes' is also defined" in n and "project's definition is used" in n for n in events.notices())
    finally:
        await session.dispose()
