"""API keys a tool prints (its process has the user's environment) never reach the transcript, the
session events or the model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prime_jupyter.protocol.events import SessionEvent
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.runtime.secrets import Redactor
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

KEY = "sk-scripted-0123456789abcdef"
STORED = "sk-stored-in-auth-json-4567"


@pytest.mark.asyncio
async def test_keys_a_tool_prints_are_redacted_everywhere(
    tmp_path: Path, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCRIPTED_KEY", KEY)  # models.json names the variable, so bash inherits the key
    home = tmp_path / "agent"
    home.mkdir()
    provider = {
        "baseUrl": llm.base_url,
        "api": "anthropic-messages",
        "apiKey": "SCRIPTED_KEY",
        "models": [{"id": "m1"}],
    }
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "auth.json").write_text(json.dumps({"openai": {"type": "api_key", "key": STORED}}))
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text(f"openai: {STORED}\n")
    session = create_agent_session(
        SessionOptions(cwd=work, model="scripted/m1", tools=["bash", "read"], agent_dir=home)
    )
    events: list[SessionEvent] = []
    session.subscribe(events.append)
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo key=$SCRIPTED_KEY; env"})]),
        ScriptedTurn(blocks=[ToolCall(name="read", arguments={"path": "notes.txt"})]),
        ScriptedTurn(blocks=[Text(text="done")]),
    )
    await session.prompt("show me the environment")
    assert session.manager.path is not None
    transcript = session.manager.path.read_text()
    assert "key=[redacted: models.json: scripted]" in transcript  # the output is kept, the key is not
    assert "openai: [redacted: auth.json: openai]" in transcript
    requests = json.dumps([r.body for r in llm.requests])
    updates = json.dumps([repr(e) for e in events if e.type.startswith("tool_execution")])
    for where in (transcript, requests, updates):
        assert KEY not in where and STORED not in where
    assert "[redacted: models.json: scripted]" in requests


def test_a_key_inside_a_longer_one_leaves_the_longer_one_whole() -> None:
    redactor = Redactor({"SHORT_KEY": "abcdefgh", "LONG_KEY": "abcdefgh-ijklmnop"})
    assert redactor.text("abcdefgh-ijklmnop and abcdefgh") == "[redacted: LONG_KEY] and [redacted: SHORT_KEY]"
