"""Cost budgets in a server: the administrator's `c.PrimeApp.session_budget_usd` holds below settings.json's,
a prompt over it is refused saying so, and the session's state carries the spend against it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit.server import PrimeClient

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text
from prime_jupyter.testing.script import Usage


@pytest.mark.prime(session_budget_usd=1.5)
@pytest.mark.prime_settings(budget={"sessionUsd": 10})
async def test_the_servers_session_budget_holds_and_a_prompt_past_it_is_refused(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path
) -> None:
    models = json.loads((agent_dir / "models.json").read_text())
    models["providers"]["scripted"]["models"][0]["cost"] = {"input": 10_000, "output": 0}  # $1 an answer
    (agent_dir / "models.json").write_text(json.dumps(models))
    session_id = await prime.new_session()
    for _ in range(2):
        llm.enqueue(ScriptedTurn(blocks=[Text(text="answered")], usage=Usage(input=100, output=0)))
        await prime.turn(session_id, "go")
    asked = len(llm.requests)
    frames = await prime.turn(session_id, "more")  # the chat stream's one frame: the error, as for a missing key
    assert [f["type"] for f in frames] == ["error"], frames
    assert "spent $2.00 of its $1.50 budget (c.PrimeApp.session_budget_usd)" in frames[0]["message"]
    assert len(llm.requests) == asked
    state = await prime.post("connection/command", {"sessionId": session_id, "command": {"type": "get_state"}})
    budget = state["data"]["budget"] if "data" in state else state["budget"]
    assert budget["sessionSpentUsd"] == pytest.approx(2.0) and budget["sessionLimitUsd"] == 1.5
