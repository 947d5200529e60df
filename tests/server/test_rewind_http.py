"""Rewind over HTTP: `chat/command rewind` (the panel's) and the connection's `rewind` command, on a real
Jupyter server with the scripted provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit.server import PrimeClient

from prime_jupyter.connection._endpoint import ServerEndpoint
from prime_jupyter.connection.http import HttpAgentConnection
from prime_jupyter.protocol.version import CAP_REWIND
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


async def write_turn(prime: PrimeClient, llm: ScriptedLLMServer, session_id: str, path: str, content: str) -> None:
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="write", arguments={"path": path, "content": content})]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="Written.")]))
    await prime.turn(session_id, f"write {content.strip()}")


@pytest.mark.prime_settings(tools=["write", "read"])
async def test_chat_command_rewind_puts_the_file_back_and_tells_every_client(
    prime: PrimeClient, llm: ScriptedLLMServer, jp_root_dir: Path
) -> None:
    assert CAP_REWIND in (await prime.get("info"))["capabilities"]
    (jp_root_dir / "plan.txt").write_text("v1\n")
    session_id = await prime.new_session()
    await write_turn(prime, llm, session_id, "plan.txt", "v2\n")
    await write_turn(prime, llm, session_id, "plan.txt", "v3\n")
    messages = (await prime.session(session_id))["messages"]
    second = next(m for m in messages if m["role"] == "user" and m["parts"][0]["text"] == "write v3")
    async with prime.events(session_id) as sse:
        await sse.frame()
        result = await prime.post(
            "chat/command", {"sessionId": session_id, "command": "rewind", "entryId": second["id"]}
        )
        assert (await sse.frame())[1] == {"type": "resync-required", "reason": "history-changed"}
    assert (jp_root_dir / "plan.txt").read_text() == "v2\n"
    assert result["command"] == "rewind" and result["restored"] == ["plan.txt"] and result["editorText"] == "write v3"
    assert result["summary"].startswith("Rewound: restored plan.txt.")
    users = [m["parts"][0]["text"] for m in (await prime.session(session_id))["messages"] if m["role"] == "user"]
    assert users == ["write v2"]


@pytest.mark.prime_settings(tools=["write", "read"])
async def test_a_rewind_to_what_is_not_a_user_message_is_a_400(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    await write_turn(prime, llm, session_id, "a.txt", "x\n")
    answer = (await prime.session(session_id))["messages"][-1]["id"]
    request = json.dumps({"sessionId": session_id, "command": "rewind", "entryId": answer}).encode()
    status, body = await prime.status("POST", "chat/command", request)
    assert status == 400 and "not a user message" in str(body)


@pytest.mark.prime_settings(tools=["write", "read"])
async def test_the_connection_rewinds_too(
    prime: PrimeClient,
    llm: ScriptedLLMServer,
    jp_root_dir: Path,
    jp_http_port: int,
    jp_base_url: str,
    jp_auth_header: dict[str, str],
) -> None:
    session_id = await prime.new_session()
    await write_turn(prime, llm, session_id, "made.txt", "new\n")
    user = next(m for m in (await prime.session(session_id))["messages"] if m["role"] == "user")
    token = jp_auth_header["Authorization"].split()[-1]
    endpoint = ServerEndpoint(f"http://127.0.0.1:{jp_http_port}{jp_base_url}", token)
    connection = await HttpAgentConnection.connect(endpoint, session_id)
    try:
        result = await connection.rewind(user["id"])
    finally:
        await connection.dispose()
    assert not (jp_root_dir / "made.txt").exists()  # the agent created it
    assert result.restored == ["made.txt"] and result.editor_text == "write new"
