"""The `ask` tool and SessionUI: answered, dismissed, timed out, cancelled by abort."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from prime_jupyter.ai.types import ToolResultMessage
from prime_jupyter.protocol.events import QuestionAsked, QuestionResolved, SessionEvent
from prime_jupyter.protocol.questions import SelectAnswer
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.tools.ask import USER_NOTES


def make_session(tmp_path: Path, llm: ScriptedLLMServer, timeout_s: float | None = 60) -> AgentSession:
    home = tmp_path / "agent"
    home.mkdir(exist_ok=True)
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "m1"}]}
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "settings.json").write_text(json.dumps({} if timeout_s is None else {"questionTimeoutS": timeout_s}))
    options = SessionOptions(cwd=tmp_path, model="scripted/m1", tools=["read"], agent_dir=home, interactive=True)
    return create_agent_session(options)


ASK = ToolCall(name="ask", arguments={"question": "Which file?", "kind": "select", "options": ["a.csv", "b.csv"]})


async def asked(session: AgentSession, prompt: str) -> tuple[asyncio.Future[None], QuestionAsked, list[SessionEvent]]:
    events: list[SessionEvent] = []
    got = asyncio.Event()
    session.subscribe(lambda e: (events.append(e), got.set() if isinstance(e, QuestionAsked) else None))
    run = asyncio.ensure_future(session.prompt(prompt))
    await asyncio.wait_for(got.wait(), timeout=10)
    question = next(e for e in events if isinstance(e, QuestionAsked))
    return run, question, events


def tool_result(session: AgentSession) -> str:
    return next(m for m in session.messages() if isinstance(m, ToolResultMessage)).text()


@pytest.mark.asyncio
async def test_an_answered_question_reaches_the_model(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    assert "ask" in [t.name for t in session.tools]
    llm.enqueue(ScriptedTurn(blocks=[ASK]), ScriptedTurn(blocks=[Text(text="using b.csv")]))
    run, question, events = await asked(session, "load the data")
    assert [o.label for o in question.question.options] == ["a.csv", "b.csv"]
    assert session.ui.pending() == [question.question]
    assert session.ui.answer(question.question.id, SelectAnswer(option_ids=["1"]))
    assert not session.ui.answer(question.question.id, SelectAnswer(option_ids=["0"]))  # only once
    await run
    assert tool_result(session) == "The user chose: b.csv"
    resolved = [e for e in events if isinstance(e, QuestionResolved)]
    assert len(resolved) == 1 and resolved[0].answer is not None
    await session.dispose()


@pytest.mark.asyncio
async def test_without_a_configured_timeout_a_question_has_no_deadline(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    """Issue 31 item 9: questions timed out after 60 s by default and the agent went on without the answer."""
    session = make_session(tmp_path, llm, timeout_s=None)
    llm.enqueue(ScriptedTurn(blocks=[ASK]), ScriptedTurn(blocks=[Text(text="using a.csv")]))
    run, question, _ = await asked(session, "load the data")
    assert question.question.timeout_ms == 0 and session.ui.pending() == [question.question]
    assert session.ui.answer(question.question.id, SelectAnswer(option_ids=["0"]))
    await asyncio.wait_for(run, timeout=10)
    assert tool_result(session) == "The user chose: a.csv"
    await session.dispose()


@pytest.mark.asyncio
async def test_an_unanswered_question_times_out(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm, timeout_s=0.3)
    llm.enqueue(ScriptedTurn(blocks=[ASK]), ScriptedTurn(blocks=[Text(text="ok")]))
    run, _, events = await asked(session, "go")
    await asyncio.wait_for(run, timeout=10)
    assert "did not answer (the question timed out)" in tool_result(session)
    result = next(m for m in session.messages() if isinstance(m, ToolResultMessage))
    assert result.details == {"note": USER_NOTES["timeout"]}  # what front ends show instead
    assert [e.cancelled for e in events if isinstance(e, QuestionResolved)] == ["timeout"]
    await session.dispose()


@pytest.mark.asyncio
async def test_abort_cancels_a_pending_question(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    llm.enqueue(ScriptedTurn(blocks=[ASK]))
    run, question, events = await asked(session, "go")
    await asyncio.wait_for(session.abort(), timeout=5)
    await run
    assert [e.cancelled for e in events if isinstance(e, QuestionResolved)] == ["abort"]
    assert not session.ui.pending()
    assert not session.ui.answer(question.question.id, None)
    await session.dispose()
