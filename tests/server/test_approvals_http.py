"""Approvals over HTTP: a tool call in `ask` mode is a pending `select` question tied to its call, answered
from a second connection; a rejection's words reach the model; the server's default and allowed modes;
an approval pending when the server dies is refused cleanly, never run."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

import pytest
from kit.server import Json, PrimeClient, ServerProcess, write_agent_dir

from prime_jupyter.connection import ServerTarget, open_connection
from prime_jupyter.protocol.questions import SelectAnswer
from prime_jupyter.server.app import PrimeApp
from prime_jupyter.server.host.dialogs import APPROVAL_RESTART_TEXT
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

ECHO = ToolCall(name="bash", arguments={"command": "echo approved"})


def bash_part(snapshot: Json) -> Json:
    return next(p for m in snapshot["messages"] for p in m["parts"] if p.get("toolName") == "bash")


async def choose(prime: PrimeClient, session_id: str, question: Json, option: str, **extra: str) -> None:
    answer = {"kind": "select", "optionIds": [option], **extra}
    await prime.post("chat/question", {"sessionId": session_id, "questionId": question["id"], "answer": answer})


def output_text(part: Json) -> str:
    return str(part["output"]["content"][0]["text"])


async def test_an_approval_is_answered_from_a_second_connection(
    prime: PrimeClient, llm: ScriptedLLMServer, jp_http_port: int, jp_base_url: str, jp_auth_header: dict[str, str]
) -> None:
    session_id = await prime.new_session(permissionMode="ask")
    llm.enqueue(ScriptedTurn(blocks=[ECHO]), ScriptedTurn(blocks=[Text(text="done")]))
    token = jp_auth_header["Authorization"].split()[-1]
    url = f"http://127.0.0.1:{jp_http_port}{jp_base_url}"
    other = await open_connection(ServerTarget(cwd=Path.cwd(), url=url, token=token, session=session_id))
    try:
        frames: list[Json] = []
        async with prime.chat({"sessionId": session_id, "message": "say it"}) as stream:
            async for frame in stream:
                frames.append(frame)
                if frame["type"] == "question":
                    assert frame["kind"] == "select" and frame["message"] == "echo approved"
                    assert [o["id"] for o in frame["options"]] == ["allow_once", "allow_always", "reject_once"]
                    call = next(f for f in frames if f["type"] == "tool")
                    assert frame["toolCallId"] == call["part"]["toolCallId"]
                    assert (await other.get_state()).permission_mode == "ask"
                    await other.answer_question(frame["id"], SelectAnswer(option_ids=["allow_once"]))
    finally:
        await other.dispose()
    assert output_text(bash_part(await prime.session(session_id))).strip() == "approved"


async def test_a_rejection_with_a_reason_reaches_the_model(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session(permissionMode="ask")
    llm.enqueue(ScriptedTurn(blocks=[ECHO]), ScriptedTurn(blocks=[Text(text="ok")]))
    async with prime.chat({"sessionId": session_id, "message": "say it"}) as stream:
        async for frame in stream:
            if frame["type"] == "question":
                answer = {"kind": "select", "optionIds": ["reject_once"], "text": "use printf"}
                await prime.post(
                    "chat/question", {"sessionId": session_id, "questionId": frame["id"], "answer": answer}
                )
    part = bash_part(await prime.session(session_id))
    assert part["state"] == "output-error" and 'They said: "use printf"' in part["errorText"]
    assert "use printf" in json.dumps(llm.requests[-1].body)


async def test_allow_always_does_not_ask_for_the_second_identical_call(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session(permissionMode="ask")
    llm.enqueue(ScriptedTurn(blocks=[ECHO]), ScriptedTurn(blocks=[ECHO]), ScriptedTurn(blocks=[Text(text="ok")]))
    questions = 0
    async with prime.chat({"sessionId": session_id, "message": "twice"}) as stream:
        async for frame in stream:
            if frame["type"] == "question":
                questions += 1
                answer = {"kind": "select", "optionIds": ["allow_always"]}
                await prime.post(
                    "chat/question", {"sessionId": session_id, "questionId": frame["id"], "answer": answer}
                )
    assert questions == 1


def test_the_shipped_default_mode_is_ask_and_every_mode_is_allowed() -> None:
    assert PrimeApp.default_permission_mode.default_value == "ask"
    assert PrimeApp().allowed_permission_modes == ["ask", "accept-edits", "plan", "auto"]


@pytest.mark.prime(default_permission_mode="ask")
@pytest.mark.prime_settings(permissionMode=None)
async def test_the_servers_default_mode_applies_without_a_setting(prime: PrimeClient) -> None:
    session_id = await prime.new_session()
    state = await prime.post("connection/command", {"sessionId": session_id, "command": {"type": "get_state"}})
    assert state["permissionMode"] == "ask"
    assert state["allowedPermissionModes"] == ["ask", "accept-edits", "plan", "auto"]


@pytest.mark.prime(allowed_permission_modes=["ask", "plan"])
async def test_a_forbidden_mode_is_refused_with_403_naming_the_allowed_ones(prime: PrimeClient) -> None:
    status, body = await prime.status("POST", "chat/new", json.dumps({"permissionMode": "auto"}).encode())
    assert status == 403 and "'auto' is not allowed on this server: choose from ask, plan" in body["message"]
    session_id = await prime.new_session(permissionMode="plan")
    switch = {"sessionId": session_id, "command": {"type": "set_permission_mode", "mode": "accept-edits"}}
    status, body = await prime.status("POST", "connection/command", json.dumps(switch).encode())
    assert status == 403 and "choose from ask, plan" in body["message"]


async def test_an_unknown_mode_is_a_400_naming_the_modes(prime: PrimeClient) -> None:
    status, body = await prime.status("POST", "chat/new", json.dumps({"permissionMode": "yolo"}).encode())
    assert status == 400 and "ask, accept-edits, plan, auto" in body["message"]


async def test_the_mode_is_changed_by_a_connection_command_and_kept_across_reopening(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session(permissionMode="ask")
    switch = {"sessionId": session_id, "command": {"type": "set_permission_mode", "mode": "plan"}}
    await prime.post("connection/command", switch)
    llm.enqueue(ScriptedTurn(blocks=[ECHO]), ScriptedTurn(blocks=[Text(text="the plan")]))
    frames = await prime.turn(session_id, "plan it")
    assert not [f for f in frames if f["type"] == "question"]
    body: Any = llm.requests[0].body
    assert [t["name"] for t in body["tools"]] == ["read", "ask"]
    assert "plan mode" in output_text(bash_part(await prime.session(session_id)))


async def test_an_approval_pending_when_the_server_dies_is_refused_and_never_run(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path, jp_root_dir: Path, tmp_path: Path
) -> None:
    old = await ServerProcess(agent_dir, jp_root_dir, tmp_path / "old").ready()
    marker = jp_root_dir / "ran.txt"
    try:
        session_id = await old.client.new_session(permissionMode="ask")
        llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": f"touch {marker}"})]))
        async with old.client.chat({"sessionId": session_id, "message": "do it"}) as stream:
            async for frame in stream:
                if frame["type"] == "question":
                    break
        stored = agent_dir / "pending-questions" / f"{session_id}.json"
        for _ in range(200):
            if stored.exists():
                break
            await asyncio.sleep(0.025)
        assert stored.exists()
    finally:
        old.stop(signal.SIGKILL)
    snapshot = await prime.session(session_id)  # opening it in the new server cancels the approval
    assert snapshot["pendingQuestions"] == []
    assert output_text(bash_part(snapshot)) == APPROVAL_RESTART_TEXT
    assert not marker.exists()


def test_write_agent_dir_drops_a_setting_given_as_none(tmp_path: Path) -> None:
    home = write_agent_dir(tmp_path / "a", "http://x", permissionMode=None)
    assert "permissionMode" not in json.loads((home / "settings.json").read_text())
