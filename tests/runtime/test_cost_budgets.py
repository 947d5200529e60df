"""Cost budgets (`runtime.budget`): a session's and the agent dir's day's, from settings.json and a host's
limits (the lower holds). A run over a budget stops before its request, saying which budget and where it
is set; the day's spend is kept on disk, shared by every session and process of the agent dir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prime_jupyter.ai.types import AssistantMessage
from prime_jupyter.errors import BudgetExceededError
from prime_jupyter.protocol.events import MessageEnd, SessionEvent
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.budget import UsageLedger
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.script import Usage

DOLLAR_A_TURN = ScriptedTurn(blocks=[Text(text="answered")], usage=Usage(input=100, output=0))
"""100 input tokens at $10,000 per million: $1 an answer."""


def agent_dir(tmp_path: Path, llm: ScriptedLLMServer, budget: dict[str, float]) -> Path:
    home = tmp_path / "agent"
    home.mkdir(exist_ok=True)
    model = {"id": "m1", "contextWindow": 100_000, "maxTokens": 4096, "cost": {"input": 10_000, "output": 0}}
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k", "models": [model]}
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "settings.json").write_text(json.dumps({"budget": budget, "retry": {"enabled": False}}))
    return home


def session(home: Path, tmp_path: Path, **options: object) -> AgentSession:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return create_agent_session(
        SessionOptions(cwd=work, model="scripted/m1", tools=["read"], agent_dir=home, **options)  # type: ignore[arg-type]
    )


def last_answer(agent: AgentSession) -> AssistantMessage:
    answer = agent.messages()[-1]
    assert isinstance(answer, AssistantMessage)
    return answer


@pytest.mark.asyncio
async def test_a_session_over_its_budget_stops_before_asking(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    agent = session(agent_dir(tmp_path, llm, {"sessionUsd": 1.5}), tmp_path)
    for _ in range(2):
        llm.enqueue(DOLLAR_A_TURN)
        await agent.prompt("go")
        assert last_answer(agent).text() == "answered"  # $1, then $2: an answer under way is not cut
    asked = len(llm.requests)
    with pytest.raises(
        BudgetExceededError, match=r"spent \$2.00 of its \$1.50 budget \(settings.json budget.sessionUsd\)"
    ):
        await agent.prompt("once more")
    assert len(llm.requests) == asked and last_answer(agent).text() == "answered"  # refused before anything
    status = agent.budget.status() if agent.budget is not None else None
    assert status is not None and status.session_spent_usd == pytest.approx(2.0) and status.session_limit_usd == 1.5
    await agent.dispose()


@pytest.mark.asyncio
async def test_the_days_spend_is_shared_kept_on_disk_and_the_lower_limit_holds(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = agent_dir(tmp_path, llm, {"dailyUsd": 10})
    first = session(home, tmp_path)
    for _ in range(2):
        llm.enqueue(DOLLAR_A_TURN)
        await first.prompt("go")
    await first.dispose()
    assert UsageLedger(home).spent_today() == pytest.approx(2.0)  # read back by another reader: on disk
    second = session(home, tmp_path, daily_budget_usd=2.5)  # the host's limit is the lower: it holds
    llm.enqueue(DOLLAR_A_TURN)
    await second.prompt("go")
    assert last_answer(second).text() == "answered"
    with pytest.raises(BudgetExceededError) as refused:
        await second.prompt("and again")
    assert "today's sessions have spent $3.00 of the $2.50 daily budget (c.PrimeApp.daily_budget_usd)" in str(
        refused.value
    )
    resumed = session(home, tmp_path, mode="resume", resume=str(second.transcript_path))
    assert resumed.budget is not None and resumed.budget.session_spent == pytest.approx(1.0)  # from the transcript
    await second.dispose()
    await resumed.dispose()


@pytest.mark.asyncio
async def test_a_run_of_tool_calls_stops_at_the_request_that_would_go_past(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    agent = session(agent_dir(tmp_path, llm, {"sessionUsd": 0.5}), tmp_path)
    (tmp_path / "work" / "notes.txt").write_text("a note")
    reading = ScriptedTurn(blocks=[ToolCall(name="read", arguments={"path": "notes.txt"})], usage=DOLLAR_A_TURN.usage)
    llm.enqueue(reading)
    llm.enqueue(DOLLAR_A_TURN)  # never asked for
    events: list[SessionEvent] = []
    agent.subscribe(events.append)
    await agent.prompt("read the notes")  # $0 spent: accepted; the read's answer costs $1
    assert len(llm.requests) == 1
    ends = [e.message for e in events if isinstance(e, MessageEnd) and isinstance(e.message, AssistantMessage)]
    assert "spent $1.00 of its $0.50 budget" in (ends[-1].error_message or "")
    await agent.dispose()


def test_a_session_without_budgets_has_none(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    assert session(agent_dir(tmp_path, llm, {}), tmp_path).budget is None
