"""Questions (`ask`): answered, timed out, cancelled by abort, refused when no longer pending, and kept
on disk while pending."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from kit.server import Json, PrimeClient

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

ASK = ToolCall(name="ask", arguments={"question": "Which file?", "kind": "select", "options": ["a.csv", "b.csv"]})


def ask_tool_result(snapshot: Json) -> Json:
    return next(p for m in snapshot["messages"] for p in m["parts"] if p.get("toolName") == "ask")


async def test_an_answered_question_reaches_the_model(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path
) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[ASK]), ScriptedTurn(blocks=[Text(text="using b.csv")]))
    frames: list[Json] = []
    async with prime.chat({"sessionId": session_id, "message": "load it"}) as stream:
        async for frame in stream:
            frames.append(frame)
            if frame["type"] == "question":
                assert [o["label"] for o in frame["options"]] == ["a.csv", "b.csv"]
                pending = await prime.session(session_id)
                assert [q["id"] for q in pending["pendingQuestions"]] == [frame["id"]]
                stored = json.loads((agent_dir / "pending-questions" / f"{session_id}.json").read_text())
                assert stored["questions"][0]["id"] == frame["id"]
                answer = {"kind": "select", "optionIds": ["1"]}
                await prime.post(
                    "chat/question", {"sessionId": session_id, "questionId": frame["id"], "answer": answer}
                )
                again = {"sessionId": session_id, "questionId": frame["id"], "answer": answer}
                status, body = await prime.status("POST", "chat/question", json.dumps(again).encode())
                assert status == 404 and body["reason"] == "not-found"
    resolved = [f for f in frames if f["type"] == "question-resolved"]
    assert resolved == [
        {"type": "question-resolved", "id": resolved[0]["id"], "answer": {"kind": "select", "optionIds": ["1"]}}
    ]
    snapshot = await prime.session(session_id)
    assert ask_tool_result(snapshot)["output"]["content"][0]["text"] == "The user chose: b.csv"
    assert snapshot["pendingQuestions"] == []
    for _ in range(100):
        if not (agent_dir / "pending-questions" / f"{session_id}.json").exists():
            break
        await asyncio.sleep(0.02)
    assert not (agent_dir / "pending-questions" / f"{session_id}.json").exists()


@pytest.mark.prime(dialog_timeout=0.3)
async def test_an_unanswered_question_times_out(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[ASK]), ScriptedTurn(blocks=[Text(text="ok, a.csv then")]))
    frames = await prime.turn(session_id, "load it")
    question = next(f for f in frames if f["type"] == "question")
    assert question["timeoutMs"] == 300
    assert [f["cancelled"] for f in frames if f["type"] == "question-resolved"] == ["timeout"]
    assert "did not answer" in ask_tool_result(await prime.session(session_id))["output"]["content"][0]["text"]


async def test_a_question_has_no_deadline_unless_one_is_configured(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    """Issue 31 item 9: questions timed out after 60 s (an undocumented server default) and the agent went on."""
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[ASK]), ScriptedTurn(blocks=[Text(text="b.csv it is")]))
    frames: list[Json] = []
    async with prime.chat({"sessionId": session_id, "message": "load it"}) as stream:
        async for frame in stream:
            frames.append(frame)
            if frame["type"] == "question":
                assert frame["timeoutMs"] == 0  # no deadline: it waits for an answer
                [pending] = (await prime.session(session_id))["pendingQuestions"]
                assert pending["id"] == frame["id"] and pending["timeoutMs"] == 0
                answer = {"kind": "select", "optionIds": ["1"]}
                await prime.post(
                    "chat/question", {"sessionId": session_id, "questionId": frame["id"], "answer": answer}
                )
    assert "The user chose: b.csv" in ask_tool_result(await prime.session(session_id))["output"]["content"][0]["text"]


@pytest.mark.prime_settings(questionTimeoutS=0.3)
async def test_settings_json_sets_the_question_timeout_of_a_server_session(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[ASK]), ScriptedTurn(blocks=[Text(text="ok, a.csv then")]))
    frames = await prime.turn(session_id, "load it")
    assert next(f for f in frames if f["type"] == "question")["timeoutMs"] == 300
    assert [f["cancelled"] for f in frames if f["type"] == "question-resolved"] == ["timeout"]


async def test_abort_cancels_a_pending_question(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[ASK]))
    frames: list[Json] = []
    async with prime.chat({"sessionId": session_id, "message": "load it"}) as stream:
        async for frame in stream:
            frames.append(frame)
            if frame["type"] == "question":
                await prime.post("chat/abort", {"sessionId": session_id})
    question = next(f for f in frames if f["type"] == "question")
    assert [f["cancelled"] for f in frames if f["type"] == "question-resolved"] == ["abort"]
    assert frames[-1]["type"] == "done" and frames[-1]["stopReason"] == "aborted"
    late = {"sessionId": session_id, "questionId": question["id"], "answer": {"kind": "select", "optionIds": ["0"]}}
    assert (await prime.status("POST", "chat/question", json.dumps(late).encode()))[0] == 404


async def test_an_answer_of_the_wrong_kind_is_refused_and_the_question_stays(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[ASK]), ScriptedTurn(blocks=[Text(text="fine")]))
    async with prime.chat({"sessionId": session_id, "message": "load it"}) as stream:
        async for frame in stream:
            if frame["type"] == "question":
                wrong = {"sessionId": session_id, "questionId": frame["id"], "answer": {"kind": "input", "text": "x"}}
                status, body = await prime.status("POST", "chat/question", json.dumps(wrong).encode())
                assert status == 400 and body["message"].startswith("answer:")
                dismiss = {"sessionId": session_id, "questionId": frame["id"]}
                await prime.post("chat/question", dismiss)
    assert "did not answer" in ask_tool_result(await prime.session(session_id))["output"]["content"][0]["text"]
