"""A server restart: a session resumed in a new server hydrates identically, a question pending when
the old server died is cancelled cleanly (recorded in the transcript), not lost, and the SSE cursors
of the old server are refused (`resync-required`), never replayed from."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

from kit.server import Json, PrimeClient, ServerProcess, text_of

from prime_jupyter.server.host.dialogs import RESTART_TEXT
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, Thinking, ToolCall

ASK = ToolCall(name="ask", arguments={"question": "Go on?", "kind": "confirm"})


async def test_a_resumed_session_hydrates_identically(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path, jp_root_dir: Path, tmp_path: Path
) -> None:
    old = await ServerProcess(agent_dir, jp_root_dir, tmp_path / "old").ready()
    try:
        session_id = await old.client.new_session()
        llm.enqueue(
            ScriptedTurn(blocks=[Thinking(text="hmm"), ToolCall(name="bash", arguments={"command": "echo 42"})]),
            ScriptedTurn(blocks=[Text(text="it is 42")]),
        )
        await old.client.turn(session_id, "what is it?")
        before = await old.client.session(session_id)
    finally:
        old.stop(signal.SIGTERM)
    after = await prime.session(session_id)  # this test's server: a restart on the same agent dir
    assert after["messages"] == before["messages"]
    assert after["session"]["sessionId"] == session_id and after["model"] == before["model"]
    assert after["usage"] == before["usage"]
    llm.enqueue(ScriptedTurn(blocks=[Text(text="still 42")]))
    assert text_of(await prime.turn(session_id, "and now?")) == "still 42"


async def wait_for(path: Path) -> None:
    for _ in range(200):
        if path.exists():
            return
        await asyncio.sleep(0.025)
    raise AssertionError(f"{path} never appeared")


async def test_a_question_pending_at_a_crash_is_cancelled_cleanly(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path, jp_root_dir: Path, tmp_path: Path
) -> None:
    old = await ServerProcess(agent_dir, jp_root_dir, tmp_path / "old").ready()
    question: Json = {}
    try:
        session_id = await old.client.new_session()
        llm.enqueue(ScriptedTurn(blocks=[ASK]))
        async with old.client.chat({"sessionId": session_id, "message": "do it"}) as stream:
            async for frame in stream:
                if frame["type"] == "question":
                    question = frame
                    break
        await wait_for(agent_dir / "pending-questions" / f"{session_id}.json")
    finally:
        old.stop(signal.SIGKILL)
    async with prime.events(session_id, cursor=0) as sse:  # opening the session cancels the question
        _, connected = await sse.frame()
        seq, resolved = await sse.frame()
    assert resolved == {"type": "question-resolved", "id": question["id"], "cancelled": "shutdown"}
    assert seq == connected["cursor"]  # replayed from the ring's start, and the only frame in it
    snapshot = await prime.session(session_id)
    assert snapshot["pendingQuestions"] == []
    ask = snapshot["messages"][1]["parts"][0]
    assert ask["state"] == "output-available" and ask["output"]["content"][0]["text"] == RESTART_TEXT
    assert not (agent_dir / "pending-questions" / f"{session_id}.json").exists()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="asking again later")]))
    await prime.turn(session_id, "sorry, the server went down")
    sent = json.dumps(llm.requests[-1].body)
    assert RESTART_TEXT in sent


async def test_a_cursor_from_the_old_server_gets_resync_required_and_no_frames(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path, jp_root_dir: Path, tmp_path: Path
) -> None:
    """Regression: rings numbered from 1 in every process replayed the new server's frames after an old
    cursor as soon as the new ring had grown past it."""
    old = await ServerProcess(agent_dir, jp_root_dir, tmp_path / "old").ready()
    try:
        session_id = await old.client.new_session()
        llm.enqueue(ScriptedTurn(blocks=[Text(text="one two", chunks=2)]))
        await old.client.turn(session_id, "before")
        old_cursor = (await old.client.session(session_id))["cursor"]
    finally:
        old.stop(signal.SIGTERM)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one two three four five six", chunks=6)]))
    await prime.turn(session_id, "after")  # the new server's ring now holds more frames than the old one had
    async with prime.events(session_id, cursor=old_cursor) as sse:
        seq, connected = await sse.frame()
        assert seq is None and connected["type"] == "connected" and connected["cursor"] > old_cursor
        assert await sse.frame() == (None, {"type": "resync-required", "reason": "cursor-expired"})
        llm.enqueue(ScriptedTurn(blocks=[Text(text="later")]))
        await prime.turn(session_id, "later")
        live = await sse.until(lambda f: f["type"] == "done")
    assert live[0][0] == connected["cursor"] + 1 and live[0][1]["type"] == "start"  # nothing was replayed


async def test_exports_neither_double_nor_resurrect_a_session_after_a_restart(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path, jp_root_dir: Path, tmp_path: Path
) -> None:
    """Regression (issue 27, item 2): after a restart the export was listed as a second session, opened by
    id in its place (exporting again: 500, SameFileError), and reopened as the session after a delete."""
    old = await ServerProcess(agent_dir, jp_root_dir, tmp_path / "old").ready()
    try:
        session_id = await old.client.new_session()
        llm.enqueue(ScriptedTurn(blocks=[Text(text="an answer")]))
        await old.client.turn(session_id, "a question")
        export = {"sessionId": session_id, "command": "export", "format": "jsonl"}
        exported = await old.client.post("chat/command", export)
    finally:
        old.stop(signal.SIGTERM)
    transcript = agent_dir / "sessions" / f"{session_id}.jsonl"
    legacy = transcript.with_name(f"{session_id}.export.jsonl")  # where an earlier version put its export
    legacy.write_bytes(transcript.read_bytes())
    assert [s["sessionId"] for s in (await prime.get("chat/sessions"))["sessions"]] == [session_id]
    assert await prime.post("chat/command", export) == exported
    llm.enqueue(ScriptedTurn(blocks=[Text(text="another answer")]))
    await prime.turn(session_id, "another question")
    assert "another question" in transcript.read_text() and "another question" not in legacy.read_text()
    await prime.call("DELETE", "chat/sessions", {"sessionId": session_id})
    assert (await prime.status("GET", "chat/session", params={"sessionId": session_id}))[0] == 404
    assert (await prime.get("chat/sessions"))["sessions"] == []
