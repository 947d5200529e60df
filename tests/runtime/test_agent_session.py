"""AgentSession against the scripted server: persistence, queues, abort, compaction, model changes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from prime_jupyter.ai.types import AssistantMessage, ToolResultMessage, UserMessage
from prime_jupyter.errors import BusyError
from prime_jupyter.protocol.events import SessionEvent
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.testing import ContextOverflow, ScriptedLLMServer, ScriptedTurn, Text, ToolCall, Usage


def make_session(tmp_path: Path, llm: ScriptedLLMServer, **settings: object) -> AgentSession:
    home = tmp_path / "agent"
    home.mkdir(exist_ok=True)
    provider = {
        "baseUrl": llm.base_url,
        "api": "anthropic-messages",
        "apiKey": "k",
        "models": [{"id": "m1", "contextWindow": 100_000, "maxTokens": 4096}],
    }
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 10}, **settings}))
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    options = SessionOptions(cwd=work, model="scripted/m1", tools=["bash", "read"], agent_dir=home)
    return create_agent_session(options)


def bash(command: str) -> ToolCall:
    return ToolCall(name="bash", arguments={"command": command})


async def start_and_wait_for_tool(session: AgentSession, prompt: str) -> asyncio.Future[None]:
    """Start a run and return once its first tool is executing."""
    running = asyncio.Event()
    session.subscribe(lambda e: running.set() if e.type == "tool_execution_start" else None)
    run = asyncio.ensure_future(session.prompt(prompt))
    await asyncio.wait_for(running.wait(), timeout=10)
    return run


def transcript(session: AgentSession) -> list[dict[str, object]]:
    assert session.manager.path is not None
    return [json.loads(line) for line in session.manager.path.read_text().split("\n") if line]


@pytest.mark.asyncio
async def test_every_finished_message_is_on_disk_when_its_event_is_seen(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    llm.enqueue(ScriptedTurn(blocks=[bash("echo hi")]), ScriptedTurn(blocks=[Text(text="said hi")]))
    on_disk_at_end: list[int] = []

    def listener(event: SessionEvent) -> None:
        if event.type == "message_end" and session.manager.path and session.manager.path.exists():
            on_disk_at_end.append(len(transcript(session)))

    session.subscribe(listener)
    await session.prompt("say hi")
    lines = transcript(session)
    assert lines[0]["type"] == "session"
    roles = [line["message"]["role"] for line in lines if line["type"] == "message"]  # type: ignore[index]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    assert on_disk_at_end == sorted(on_disk_at_end) and on_disk_at_end[-1] == len(lines)
    await session.dispose()


@pytest.mark.asyncio
async def test_steer_and_follow_up_while_a_tool_runs(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    llm.enqueue(
        ScriptedTurn(blocks=[bash("sleep 0.5; echo slow")]),
        ScriptedTurn(blocks=[Text(text="steered")]),
        ScriptedTurn(blocks=[Text(text="followed")]),
    )
    queue_updates: list[tuple[list[str], list[str]]] = []
    session.subscribe(lambda e: queue_updates.append((e.steering, e.follow_up)) if e.type == "queue_update" else None)

    run = await start_and_wait_for_tool(session, "start")
    await session.prompt("FOLLOW", streaming_behavior="follow_up")
    await session.prompt("STEER", streaming_behavior="steer")
    with pytest.raises(BusyError):
        await session.prompt("neither")
    await run
    texts = [(m.role, m.text()) for m in session.messages()]  # type: ignore[union-attr]
    assert texts == [
        ("user", "start"),
        ("assistant", ""),
        ("toolResult", "slow"),
        ("user", "STEER"),
        ("assistant", "steered"),
        ("user", "FOLLOW"),
        ("assistant", "followed"),
    ]
    assert (["STEER"], ["FOLLOW"]) in queue_updates and queue_updates[-1] == ([], [])
    await session.dispose()


@pytest.mark.asyncio
async def test_abort_stops_the_tool_and_keeps_queued_work(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    llm.enqueue(ScriptedTurn(blocks=[bash("sleep 30")]))
    run = await start_and_wait_for_tool(session, "go")
    session.follow_up("later please")
    await asyncio.wait_for(session.abort(), timeout=5)
    await run
    result = [m for m in session.messages() if isinstance(m, ToolResultMessage)]
    assert result and result[0].is_error and "abort" in result[0].text().lower()
    assert session.follow_ups.texts() == ["later please"]
    assert len(llm.requests) == 1
    await session.dispose()


@pytest.mark.asyncio
async def test_overflow_compacts_then_retries_once(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm, compaction={"keepRecentTokens": 10})
    for i in range(2):
        llm.enqueue(ScriptedTurn(blocks=[Text(text=f"answer {i} " * 20)]))
        await session.prompt(f"question {i} " * 20)
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="x")], fault=ContextOverflow()),
        ScriptedTurn(blocks=[Text(text="## Goal\nsummary of the first exchange")]),
        ScriptedTurn(blocks=[Text(text="summary of the turn prefix")]),
        ScriptedTurn(blocks=[Text(text="answer after compaction")]),
    )
    events: list[SessionEvent] = []
    session.subscribe(events.append)
    await session.prompt("second question")
    kinds = [e.type for e in events]
    assert kinds.count("compaction_start") == 1 and kinds.count("compaction_end") == 1
    end = next(e for e in events if e.type == "compaction_end")
    assert end.will_retry and end.summary and "summary of the first exchange" in end.summary  # type: ignore[union-attr]
    context = session.messages()
    assert isinstance(context[0], UserMessage) and "summary of the first exchange" in context[0].text()
    last = context[-1]
    assert isinstance(last, AssistantMessage) and last.text() == "answer after compaction"
    assert "summary of the first exchange" in json.dumps(llm.requests[-1].body)
    assert any(line["type"] == "compaction" for line in transcript(session))
    await session.dispose()


@pytest.mark.asyncio
async def test_a_second_overflow_is_reported_not_retried_forever(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm, compaction={"keepRecentTokens": 10})
    llm.enqueue(ScriptedTurn(blocks=[Text(text="a " * 50)]))
    await session.prompt("q " * 50)
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="x")], fault=ContextOverflow()),
        ScriptedTurn(blocks=[Text(text="summary")]),
        ScriptedTurn(blocks=[Text(text="x")], fault=ContextOverflow()),
    )
    await session.prompt("again")
    last = session.messages()[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "error"
    assert len(llm.requests) == 4
    await session.dispose()


@pytest.mark.asyncio
async def test_threshold_compaction_after_a_big_turn(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm, compaction={"reserveTokens": 16384, "keepRecentTokens": 10})
    llm.enqueue(ScriptedTurn(blocks=[Text(text="small answer " * 30)]))
    await session.prompt("hello there " * 30)
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="big")], usage=Usage(input=90_000, output=100)),
        ScriptedTurn(blocks=[Text(text="the summary")]),
    )
    events: list[SessionEvent] = []
    session.subscribe(events.append)
    await session.prompt("make it big")
    start = next(e for e in events if e.type == "compaction_start")
    assert start.reason == "threshold"  # type: ignore[union-attr]
    assert "the summary" in session.messages()[0].text()  # type: ignore[union-attr]
    await session.dispose()


@pytest.mark.parametrize("behavior", ["follow_up", "steer"])
@pytest.mark.asyncio
async def test_a_message_queued_as_the_run_ends_is_delivered_in_that_run(
    tmp_path: Path, llm: ScriptedLLMServer, behavior: str
) -> None:
    """Issue 25: the loop takes follow-ups one last time and ends, while the run goes on (threshold compaction
    here): a message queued then waited for the next prompt. It is queued at the one moment that window is
    sure to be open: when compaction starts, after the loop's last look at the queues."""
    session = make_session(tmp_path, llm, compaction={"reserveTokens": 16384, "keepRecentTokens": 10})
    llm.enqueue(ScriptedTurn(blocks=[Text(text="small answer " * 30)]))
    await session.prompt("hello there " * 30)
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="big")], usage=Usage(input=90_000, output=100)),
        ScriptedTurn(blocks=[Text(text="the summary")]),
        ScriptedTurn(blocks=[Text(text="about the late message")]),
    )
    kinds: list[str] = []

    def listener(event: SessionEvent) -> None:
        kinds.append(event.type)
        if event.type == "compaction_start":
            assert session.is_running
            session.queue_message("a late message", None, behavior)

    session.subscribe(listener)
    await session.prompt("make it big")
    assert not session.is_running and session.steering.items == [] and session.follow_ups.items == []
    assert "a late message" in json.dumps(llm.requests[-1].body)
    last = session.messages()[-1]
    assert isinstance(last, AssistantMessage) and last.text() == "about the late message"
    assert kinds.index("compaction_end") < kinds.index("agent_start", kinds.index("compaction_start"))
    await session.dispose()


@pytest.mark.asyncio
async def test_a_message_queued_as_an_aborted_run_ends_waits_for_the_next_prompt(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    session = make_session(tmp_path, llm)
    llm.enqueue(ScriptedTurn(blocks=[bash("sleep 5")]))
    run = await start_and_wait_for_tool(session, "start")
    session.follow_up("after the abort")
    await session.abort()
    await run
    assert [m.text() for m in session.follow_ups.items] == ["after the abort"] and len(llm.requests) == 1
    await session.dispose()


@pytest.mark.asyncio
async def test_manual_compaction_and_model_changes_persist_and_resume(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm, compaction={"keepRecentTokens": 10})
    for i in range(3):
        llm.enqueue(ScriptedTurn(blocks=[Text(text=f"answer {i} " * 30)]))
        await session.prompt(f"question {i} " * 30)
    # the cut falls inside the last turn: one summary of the history, one of the turn's prefix
    llm.enqueue(ScriptedTurn(blocks=[Text(text="manual summary")]), ScriptedTurn(blocks=[Text(text="prefix")]))
    assert await session.compact("focus on answers")
    assert "focus on answers" in json.dumps(llm.requests[-2].body)
    assert "manual summary" in session.messages()[0].text()  # type: ignore[union-attr]
    session.set_thinking_level("high")
    session.set_name("my analysis")
    assert session.manager.path is not None
    reopened = SessionManager.open(session.manager.path)
    assert reopened.build_context().messages == session.manager.build_context().messages
    assert reopened.build_context().model_id == "m1"
    assert reopened.name == "my analysis"
    await session.dispose()
