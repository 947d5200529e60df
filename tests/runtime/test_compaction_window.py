"""Issue 31 item 5: on a 32k-context model the compaction defaults (reserve 16,384, keep 20,000) made every turn
end in "Compaction failed: nothing to compact yet". They scale to the model's window; settings still win."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prime_jupyter.protocol.events import CompactionEnd, SessionEvent
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.runtime.settings import CompactionSettings
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, Usage

WINDOW = 32_768


def make_session(tmp_path: Path, llm: ScriptedLLMServer, **settings: object) -> AgentSession:
    home = tmp_path / "agent"
    home.mkdir(exist_ok=True)
    model = {"id": "local", "contextWindow": WINDOW, "maxTokens": 4096}
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k", "models": [model]}
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "settings.json").write_text(json.dumps({"retry": {"enabled": False}, **settings}))
    return create_agent_session(SessionOptions(cwd=tmp_path, model="scripted/local", tools=["read"], agent_dir=home))


def turn(text_tokens: int, used: int) -> ScriptedTurn:
    """An answer of about `text_tokens` estimated tokens whose usage says the context held `used`."""
    return ScriptedTurn(blocks=[Text(text="word " * (text_tokens * 4 // 5))], usage=Usage(input=used, output=100))


def ends(events: list[SessionEvent]) -> list[CompactionEnd]:
    return [e for e in events if isinstance(e, CompactionEnd)]


@pytest.mark.asyncio
async def test_a_32k_model_compacts_once_there_is_something_to_compact(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    events: list[SessionEvent] = []
    session.subscribe(events.append)
    llm.enqueue(turn(9_000, 9_500), turn(8_000, 18_000))
    await session.prompt("first")
    await session.prompt("second")  # 18,000 used: past 32,768 - 16,384, but less than 20,000 to keep
    assert ends(events) == []  # no "Compaction failed: nothing to compact yet"

    summaries = [ScriptedTurn(blocks=[Text(text="the summary")]), ScriptedTurn(blocks=[Text(text="its turn")])]
    llm.enqueue(turn(6_000, 26_500), *summaries)  # the cut falls inside the second turn: two summaries
    await session.prompt("third")  # past 32,768 - 8,192
    [end] = ends(events)
    assert end.reason == "threshold" and end.error_message is None and end.summary is not None
    assert "the summary" in end.summary and llm.pending == 0
    await session.dispose()


def test_settings_json_values_are_used_as_written() -> None:
    assert CompactionSettings().for_window(WINDOW) == (8_192, 8_192)
    assert CompactionSettings().for_window(200_000) == (16_384, 20_000)
    written = CompactionSettings.model_validate({"reserveTokens": 16_384, "keepRecentTokens": 20_000})
    assert written.for_window(WINDOW) == (16_384, 20_000)
