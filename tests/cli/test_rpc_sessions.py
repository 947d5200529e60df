"""`jupyter prime --mode rpc`: the commands that change the model, the context and the session (new, fork,
clone, switch, export), through a subprocess against the scripted provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit.rpc_client import RpcClient, rpc_process

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]  # `jupyter prime` runs as a subprocess

AGENT = ("--mode", "rpc", "--model", "scripted/m1", "--tools", "read")


async def turn(rpc: RpcClient, message: str) -> None:
    """Prompt and wait for the run to end."""
    ends = len(rpc.events("agent_end"))
    await rpc.ok({"type": "prompt", "message": message})
    await rpc.wait_for_event("agent_end", ends + 1)


async def test_model_thinking_level_and_compaction(agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path) -> None:
    settings = agent_dir / "settings.json"
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "compaction": {"keepRecentTokens": 1}}))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="first answer")]), ScriptedTurn(blocks=[Text(text="the summary")]))
    async with rpc_process(agent_dir, *AGENT, cwd=tmp_path) as rpc:
        models = await rpc.ok({"type": "get_available_models"})
        assert await rpc.ok({"type": "set_thinking_level", "level": "high"}) == {"ok": True}
        bad_level = await rpc.call({"type": "set_thinking_level", "level": "enormous"})
        await turn(rpc, "hello")
        compacted = await rpc.ok({"type": "compact", "customInstructions": "keep it short"})
        assert await rpc.ok({"type": "set_model", "provider": "scripted-openai", "modelId": "m2"}) == {"ok": True}
        bad_model = await rpc.call({"type": "set_model", "provider": "nowhere", "modelId": "nope"})
        state = await rpc.ok({"type": "get_state"})
    assert {(m["provider"], m["id"]) for m in models["models"]} >= {("scripted", "m1"), ("scripted-openai", "m2")}
    assert bad_level["success"] is False and "enormous" in bad_level["error"]
    assert llm.requests[0].body["thinking"]["type"] == "enabled"  # type: ignore[index]
    assert compacted["compacted"] is True and compacted["summary"].endswith("the summary")
    assert "keep it short" in str(llm.requests[1].body)
    assert bad_model["success"] is False and "nowhere" in bad_model["error"]
    assert state["model"] == {"provider": "scripted-openai", "id": "m2"}
    assert [e["type"] for e in rpc.lines if e["type"] in ("compaction_start", "compaction_end")] == [
        "compaction_start",
        "compaction_end",
    ]


async def test_new_fork_clone_and_switch_replace_the_session(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one")]), ScriptedTurn(blocks=[Text(text="two")]))
    async with rpc_process(agent_dir, *AGENT, cwd=tmp_path) as rpc:
        await turn(rpc, "first question")
        await turn(rpc, "second question")
        first = await rpc.ok({"type": "get_state"})
        entries = (await rpc.ok({"type": "get_messages"}))["entryIds"]
        forked = await rpc.ok({"type": "fork", "entryId": entries[2]})  # before the second question
        after_fork = await rpc.ok({"type": "get_messages"})
        cloned = await rpc.ok({"type": "clone"})
        fresh = await rpc.ok({"type": "new_session"})
        empty = await rpc.ok({"type": "get_messages"})
        back = await rpc.ok({"type": "switch_session", "sessionPath": first["sessionFile"]})
        again = await rpc.ok({"type": "get_messages"})
        missing = await rpc.call({"type": "switch_session", "session": "no-such-session"})
    assert forked["selectedText"] == "second question"
    ids = [r["snapshot"]["state"]["sessionId"] for r in (forked, cloned, fresh, back)]
    assert len(set(ids[:3])) == 3 and first["sessionId"] not in ids[:3] and ids[3] == first["sessionId"]
    assert [m["role"] for m in after_fork["messages"]] == ["user", "assistant"]
    assert [m["content"] for m in cloned["snapshot"]["messages"] if m["role"] == "user"] == ["first question"]
    assert empty["messages"] == [] and fresh["snapshot"]["messages"] == []
    assert [m["content"] for m in again["messages"] if m["role"] == "user"] == ["first question", "second question"]
    assert missing["success"] is False and "no-such-session" in missing["error"]


async def test_export_naming_listing_the_mode_and_the_commands(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="worth keeping")]))
    async with rpc_process(agent_dir, *AGENT, cwd=tmp_path) as rpc:
        await turn(rpc, "remember this")
        page = await rpc.ok({"type": "export_html", "outputPath": "page.html"})
        notebook = await rpc.ok({"type": "export", "format": "ipynb", "path": "talk.ipynb"})
        commands = await rpc.ok({"type": "get_commands"})
        assert await rpc.ok({"type": "set_session_name", "name": "kept"}) == {"ok": True}
        listed = await rpc.ok({"type": "list_sessions"})
        assert await rpc.ok({"type": "set_permission_mode", "mode": "plan"}) == {"ok": True}
        bad_mode = await rpc.call({"type": "set_permission_mode", "mode": "yolo"})
        state = await rpc.ok({"type": "get_state"})
    assert [s.get("name") for s in listed["sessions"]] == ["kept"]
    assert state["sessionName"] == "kept" and state["permissionMode"] == "plan"
    assert bad_mode["success"] is False and "yolo" in bad_mode["error"]
    assert page == {"command": "export", "path": str(tmp_path / "page.html"), "format": "html"}
    assert "worth keeping" in (tmp_path / "page.html").read_text()
    assert notebook["path"] == str(tmp_path / "talk.ipynb") and "remember this" in Path(notebook["path"]).read_text()
    by_name = {c["name"]: c for c in commands["commands"]}
    assert by_name["compact"] == {
        "name": "compact",
        "description": "summarise the conversation to free context",
        "arguments": "[instructions]",
        "source": "builtin",
    }
    assert {"model", "thinking", "new", "fork", "export"} <= set(by_name)
