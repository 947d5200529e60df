"""Compatibility (version.py): a new client against servers that lack a capability or speak another protocol,
and old clients against a new server.

The other servers are stand-ins (`kit.other_server`): real HTTP servers whose answers the test fixes, the
way a server of another prime-jupyter version would answer.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import pytest_asyncio
from kit.other_server import OtherServer, serve
from kit.remote import collect, session_events

from prime_jupyter.connection.http import HttpAgentConnection, ServerEndpoint
from prime_jupyter.connection.types import AgentConnectionUnsupportedError, SessionReplaced
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.events import AgentEnd, AgentStart
from prime_jupyter.protocol.framing import SseDecoder
from prime_jupyter.protocol.requests import SeedMessage
from prime_jupyter.protocol.version import (
    CAP_CONNECTION,
    CAP_EXPORT_IPYNB,
    CAP_KERNEL_CONTROL,
    CAP_REWIND,
    CAP_SEED_MESSAGES,
    CAP_SHELL_EVENTS,
    CAP_TREE_EDITS,
    CAPABILITIES,
    PROTOCOL_VERSION,
)
from prime_jupyter.testing.jupyter_process import TOKEN, JupyterProcess


@pytest_asyncio.fixture
async def other() -> AsyncIterator[tuple[OtherServer, ServerEndpoint]]:
    server = OtherServer()
    with serve(server) as endpoint:
        yield server, endpoint


@pytest.mark.asyncio
async def test_a_server_without_the_connection_routes_is_refused_before_anything_is_sent(
    other: tuple[OtherServer, ServerEndpoint],
) -> None:
    server, endpoint = other
    server.capabilities = [c for c in CAPABILITIES if c != CAP_CONNECTION]
    with pytest.raises(AgentConnectionUnsupportedError) as raised:
        await HttpAgentConnection.connect(endpoint)
    assert raised.value.feature == "connection" and "upgrade prime-jupyter on the server" in str(raised.value)
    assert [path for _, path, _ in server.requests] == ["/prime/api/info"]


@pytest.mark.asyncio
async def test_seed_messages_are_refused_locally_when_the_server_lacks_them(
    other: tuple[OtherServer, ServerEndpoint],
) -> None:
    server, endpoint = other
    server.capabilities = [c for c in CAPABILITIES if c != CAP_SEED_MESSAGES]
    conn = await HttpAgentConnection.connect(endpoint)
    seen = collect(conn)
    try:
        with pytest.raises(AgentConnectionUnsupportedError) as raised:
            await conn.new_session([SeedMessage(role="user", text="hi")])
        assert raised.value.feature == "new_session.seed_messages"
        assert not [body for _, path, body in server.requests if path.endswith("command")]
        await conn.new_session()
        command = next(body for _, path, body in server.requests if path.endswith("command"))["command"]
        assert command["type"] == "new_session" and "seedMessages" not in command  # an old server would ignore it
        assert conn.session_id == "old-2" and isinstance(seen[-1], SessionReplaced)
    finally:
        await conn.dispose()


@pytest.mark.asyncio
async def test_a_notebook_export_is_refused_locally_when_the_server_lacks_it(
    other: tuple[OtherServer, ServerEndpoint],
) -> None:
    server, endpoint = other
    server.capabilities = [c for c in CAPABILITIES if c != CAP_EXPORT_IPYNB]
    conn = await HttpAgentConnection.connect(endpoint)
    try:
        with pytest.raises(AgentConnectionUnsupportedError, match="upgrade prime-jupyter on the server") as raised:
            await conn.export("ipynb", "out.ipynb")
        assert raised.value.feature == "export.ipynb" and CAP_EXPORT_IPYNB in str(raised.value)
        assert not [body for _, path, body in server.requests if path.endswith("command")]
    finally:
        await conn.dispose()


@pytest.mark.asyncio
@pytest.mark.parametrize(("protocol", "upgrade"), [(0, "prime-jupyter on the server"), (2, "this client")])
async def test_a_server_of_another_protocol_is_refused_naming_what_to_upgrade(
    other: tuple[OtherServer, ServerEndpoint], protocol: int, upgrade: str
) -> None:
    server, endpoint = other
    server.protocol_version = protocol
    with pytest.raises(PrimeError, match=f"speaks protocol {protocol} .* upgrade {upgrade}"):
        await HttpAgentConnection.connect(endpoint)
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_frames_and_events_a_newer_server_adds_are_skipped(other: tuple[OtherServer, ServerEndpoint]) -> None:
    server, endpoint = other
    server.stream = (
        b'id: 101\ndata: {"type":"hologram","shape":"cube"}\n\n'
        b'id: 102\ndata: {"type":"session_event","event":{"type":"teleport_start","to":"mars"}}\n\n'
        b'id: 103\ndata: {"type":"session_event","event":{"type":"agent_start","mood":"cheerful"}}\n\n'
        b'id: 104\ndata: {"type":"session_event","event":{"type":"agent_end","messages":[]}}\n\n'
    )
    server.last_seq = 104
    conn = await HttpAgentConnection.connect(endpoint)
    seen = collect(conn)
    try:
        await conn.wait_for_idle()  # returns once everything up to the server's cursor (104) was delivered
        assert [type(e) for e in session_events(seen)] == [AgentStart, AgentEnd]
    finally:
        await conn.dispose()


@pytest.mark.asyncio
async def test_old_and_newer_clients_against_this_server(jupyter: JupyterProcess) -> None:
    url = jupyter.endpoint.url + "prime/api/connection/attach"
    async with httpx.AsyncClient(headers={"Authorization": f"token {TOKEN}"}) as client:
        old = await client.post(url, json={"clientProtocolVersion": PROTOCOL_VERSION - 1})
        assert old.status_code == 409 and "upgrade the client" in old.json()["message"]
        newer = await client.post(url, json={"clientProtocolVersion": PROTOCOL_VERSION + 1})
        assert newer.status_code == 409 and "upgrade prime-jupyter on the server" in newer.json()["message"]
        earlier_revision = {"clientProtocolVersion": PROTOCOL_VERSION, "clientSchemaRevision": 0, "oldField": 1}
        attached = await client.post(url, json=earlier_revision)
        assert attached.status_code == 200
        body = attached.json()
        assert body["protocolVersion"] == PROTOCOL_VERSION and body["snapshot"]["state"]["sessionId"]


@pytest.mark.asyncio
async def test_labels_clones_and_kernel_control_are_refused_locally_when_the_server_lacks_them(
    other: tuple[OtherServer, ServerEndpoint],
) -> None:
    server, endpoint = other
    server.capabilities = [c for c in CAPABILITIES if c not in (CAP_TREE_EDITS, CAP_KERNEL_CONTROL, CAP_REWIND)]
    conn = await HttpAgentConnection.connect(endpoint)
    try:
        calls = {
            "set_label": (conn.set_label("e1", "x"), CAP_TREE_EDITS),
            "clone": (conn.clone(), CAP_TREE_EDITS),
            "interrupt_kernel": (conn.interrupt_kernel(), CAP_KERNEL_CONTROL),
            "restart_kernel": (conn.restart_kernel(), CAP_KERNEL_CONTROL),
            "rewind": (conn.rewind("e1"), CAP_REWIND),
        }
        for feature, (call, capability) in calls.items():
            with pytest.raises(AgentConnectionUnsupportedError, match="upgrade prime-jupyter on the server") as raised:
                await call
            assert raised.value.feature == feature and capability in str(raised.value)
        assert not [body for _, path, body in server.requests if path.endswith("command")]
    finally:
        await conn.dispose()


@pytest.mark.asyncio
async def test_a_shell_command_on_a_server_without_shell_events_answers_at_its_end(
    other: tuple[OtherServer, ServerEndpoint],
) -> None:
    server, endpoint = other
    server.capabilities = [c for c in CAPABILITIES if c != CAP_SHELL_EVENTS]
    conn = await HttpAgentConnection.connect(endpoint)
    try:
        result = await conn.run_shell("ls", True, "mine")
        assert result.output == "old" and result.exit_code == 0 and result.execution_id is None
        sent = [body for _, path, body in server.requests if path.endswith("shell")]
        assert sent == [{"sessionId": "old-1", "command": "ls", "includeInContext": True, "executionId": "mine"}]
    finally:
        await conn.dispose()


@pytest.mark.asyncio
async def test_an_older_clients_shell_command_gets_an_id_and_its_events_on_the_stream(jupyter: JupyterProcess) -> None:
    api = jupyter.endpoint.url + "prime/api/connection/"
    async with httpx.AsyncClient(headers={"Authorization": f"token {TOKEN}"}, timeout=30) as client:
        attached = (await client.post(api + "attach", json={"clientProtocolVersion": PROTOCOL_VERSION})).json()
        session_id, cursor = attached["snapshot"]["state"]["sessionId"], attached["snapshot"]["cursor"]
        ran = await client.post(api + "shell", json={"sessionId": session_id, "command": "echo old-client"})
        assert ran.status_code == 200 and ran.json()["output"] == "old-client"
        execution_id = ran.json()["executionId"]
        events: list[dict[str, Any]] = []
        decoder = SseDecoder()
        params = {"sessionId": session_id, "cursor": str(cursor)}
        async with client.stream("GET", api + "events", params=params) as stream:
            async for chunk in stream.aiter_bytes():
                for message in decoder.feed(chunk):
                    data = json.loads(message.data)
                    if data["type"] == "session_event":
                        events.append(data["event"])
                if any(e["type"] == "shell_execution_end" for e in events):
                    break
    shell = [e for e in events if e["type"].startswith("shell_execution")]
    assert [e["type"] for e in shell] == ["shell_execution_start", "shell_execution_output", "shell_execution_end"]
    assert {e["executionId"] for e in shell} == {execution_id} and shell[1]["chunk"] == "old-client\n"


@pytest.mark.asyncio
async def test_a_snapshot_from_a_server_before_revision_8_says_nothing_of_what_it_left_out(
    other: tuple[OtherServer, ServerEndpoint],
) -> None:
    server, endpoint = other
    conn = await HttpAgentConnection.connect(endpoint)
    try:
        snap = await conn.get_snapshot(tail=40)
        assert snap.earlier_messages is None and snap.running_shells == []  # unknown, not "none"
        server.snapshot = {"earlierMessages": 0, "runningShells": [{"executionId": "x", "command": "sleep 9"}]}
        snap = await conn.get_snapshot(tail=40)
        assert snap.earlier_messages == 0 and [s.command for s in snap.running_shells] == ["sleep 9"]
    finally:
        await conn.dispose()
