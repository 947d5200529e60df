"""One behaviour suite for every AgentConnection implementation (the `connection` fixture's params)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from prime_jupyter.connection.types import (
    ClientNotice,
    ClientSetEditorText,
    ConnectionEvent,
    ReplacedClientContext,
    SessionEventReceived,
    SessionReplaced,
)
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.questions import ConfirmAnswer
from prime_jupyter.protocol.requests import SeedMessage
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


def events_of(conn: Any) -> list[ConnectionEvent]:
    seen: list[ConnectionEvent] = []
    conn.subscribe(seen.append)
    return seen


def session_types(seen: list[ConnectionEvent]) -> list[str]:
    return [e.event.type for e in seen if isinstance(e, SessionEventReceived)]


@pytest.mark.asyncio
async def test_prompt_streams_events_and_answers(connection: Any, llm: ScriptedLLMServer) -> None:
    seen = events_of(connection)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="hello there", chunks=3)]))
    result = await connection.prompt("hi")
    assert result.queued is None
    await connection.wait_for_idle()
    types = session_types(seen)
    assert types[0] == "agent_start" and types[-1] == "agent_end" and types.count("message_update") >= 3
    messages = (await connection.get_messages()).messages
    assert [m.role for m in messages] == ["user", "assistant"] and messages[1].text() == "hello there"
    state = await connection.get_state()
    assert state.message_count == 2 and not state.is_streaming and state.model.id == "m1"


@pytest.mark.asyncio
async def test_steer_and_follow_up_queue_while_running(connection: Any, llm: ScriptedLLMServer) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "sleep 0.4"})]),
        ScriptedTurn(blocks=[Text(text="steered")]),
        ScriptedTurn(blocks=[Text(text="followed")]),
    )
    await connection.prompt("start")
    assert (await connection.prompt("STEER", streaming_behavior="steer")).queued == "steer"
    assert (await connection.follow_up("FOLLOW")).queued == "follow_up"
    queue = await connection.get_queue()
    assert (queue.steering, queue.follow_up) == (["STEER"], ["FOLLOW"])
    await connection.wait_for_idle()
    texts = [m.text() for m in (await connection.get_messages()).messages if m.role == "user"]
    assert texts == ["start", "STEER", "FOLLOW"]


@pytest.mark.asyncio
async def test_abort_and_clear_queue(connection: Any, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "sleep 30"})]))
    await connection.prompt("go")
    await connection.follow_up("later")
    await asyncio.sleep(0.3)
    await asyncio.wait_for(connection.abort(), timeout=5)
    assert not (await connection.get_state()).is_streaming
    assert (await connection.clear_queue()).follow_up == ["later"]
    assert (await connection.get_queue()).follow_up == []


@pytest.mark.asyncio
async def test_questions_are_answered_through_the_seam(connection: Any, llm: ScriptedLLMServer) -> None:
    seen = events_of(connection)
    ask = ToolCall(name="ask", arguments={"question": "Proceed?", "kind": "confirm"})
    llm.enqueue(ScriptedTurn(blocks=[ask]), ScriptedTurn(blocks=[Text(text="ok")]))
    await connection.prompt("go")
    for _ in range(200):
        asked = [e.event for e in seen if isinstance(e, SessionEventReceived) and e.event.type == "question_asked"]
        if asked:
            break
        await asyncio.sleep(0.02)
    question = asked[0].question  # type: ignore[attr-defined]
    assert (await connection.get_snapshot()).pending_questions[0].id == question.id
    assert await connection.answer_question(question.id, ConfirmAnswer(confirmed=True))
    assert not await connection.answer_question(question.id, ConfirmAnswer(confirmed=False))
    await connection.wait_for_idle()
    results = [m for m in (await connection.get_messages()).messages if m.role == "toolResult"]
    assert results[0].text() == "The user answered: yes"


@pytest.mark.asyncio
async def test_new_session_with_seeds_replaces_and_runs_after_replace(connection: Any) -> None:
    seen = events_of(connection)
    old = (await connection.get_state()).session_id
    calls: list[str] = []

    async def after(ctx: ReplacedClientContext) -> None:
        calls.append("after")
        ctx.notify("fresh session", "info")
        ctx.set_editor_text("draft")

    result = await connection.new_session(
        [SeedMessage(role="user", text="seed q"), SeedMessage(role="assistant", text="seed a")], after_replace=after
    )
    assert not result.cancelled and calls == ["after"]
    state = await connection.get_state()
    assert state.session_id != old
    assert [m.text() for m in (await connection.get_messages()).messages] == ["seed q", "seed a"]
    kinds = [type(e) for e in seen]
    assert kinds.index(SessionReplaced) < kinds.index(ClientNotice) < kinds.index(ClientSetEditorText)


@pytest.mark.asyncio
async def test_fork_before_a_user_message_and_switch_back(connection: Any, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="a1")]), ScriptedTurn(blocks=[Text(text="a2")]))
    await connection.prompt("first")
    await connection.wait_for_idle()
    await connection.prompt("second")
    await connection.wait_for_idle()
    source = (await connection.get_state()).session_id
    messages = await connection.get_messages()
    second_id = messages.entry_ids[2]
    result = await connection.fork(second_id, "before")
    assert result.selected_text == "second"
    assert [m.text() for m in (await connection.get_messages()).messages] == ["first", "a1"]
    forked = (await connection.get_state()).session_id
    assert forked != source
    listed = {s.session_id for s in (await connection.list_sessions("all")).sessions}
    assert {source, forked} <= listed
    await connection.switch_session(source[:13])
    assert (await connection.get_state()).session_id == source
    assert len((await connection.get_messages()).messages) == 4


@pytest.mark.asyncio
async def test_a_label_is_kept_in_the_transcript_and_a_clone_copies_the_branch(
    connection: Any, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="a1")]))
    await connection.prompt("first")
    await connection.wait_for_idle()
    first_id = (await connection.get_messages()).entry_ids[0]
    await connection.set_label(first_id, "  the\n start ")
    with pytest.raises(ValueError, match="at most 200"):  # over HTTP too: the command refuses it before sending
        await connection.set_label(first_id, "x" * 201)
    labels = {node.id: node.label for node in (await connection.get_session_view()).nodes}
    assert labels[first_id] == "the start"
    source = (await connection.get_state()).session_id
    seen = events_of(connection)
    result = await connection.clone()
    assert result.snapshot is not None and result.snapshot.state.session_id != source
    assert any(isinstance(event, SessionReplaced) for event in seen)
    state = await connection.get_state()
    assert state.session_id == result.snapshot.state.session_id and state.header.get("parentSession")
    assert [m.text() for m in (await connection.get_messages()).messages] == ["first", "a1"]
    cloned = {node.preview: node.label for node in (await connection.get_session_view()).nodes}
    assert cloned["first"] == "the start"  # labels on the copied branch come along
    await connection.set_label((await connection.get_messages()).entry_ids[0], None)
    assert not any(node.label for node in (await connection.get_session_view()).nodes)
    with pytest.raises(PrimeError, match="no-such-entry"):
        await connection.set_label("no-such-entry", "x")
    with pytest.raises(PrimeError, match="no kernel"):  # these sessions have no ipython tool
        await connection.restart_kernel()


@pytest.mark.asyncio
async def test_model_thinking_rename_export_and_view(connection: Any, llm: ScriptedLLMServer, tmp_path: Any) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="x")]))
    await connection.prompt("hello")
    await connection.wait_for_idle()
    await connection.set_model("scripted", "m2")
    await connection.set_thinking_level("high")
    state = await connection.get_state()
    assert state.model.id == "m2" and state.thinking_level == "off"  # m2 does not reason: clamped
    await connection.rename_session(" my\n  work\t")
    assert (await connection.get_state()).session_name == "my work"  # one line, as lists show it
    with pytest.raises(ValueError, match="visible character"):
        await connection.rename_session(" \n ")
    assert (await connection.get_state()).session_name == "my work"
    exported = await connection.export("html", str(tmp_path / "out.html"))
    assert "hello" in open(exported.path).read()
    view = await connection.get_session_view()
    assert view.leaf_id == state.leaf_id or view.leaf_id
    assert any(node.role == "user" and node.preview == "hello" for node in view.nodes)
    models = await connection.get_available_models()
    assert {m.id for m in models.models if m.provider == "scripted"} == {"m1", "m2"}


@pytest.mark.asyncio
async def test_the_state_carries_the_transcripts_header(connection: Any, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    await connection.prompt("hi")
    await connection.wait_for_idle()
    state = await connection.get_state()
    assert state.header["type"] == "session" and state.header["id"] == state.session_id
    assert state.header["cwd"] == state.cwd
    assert (state.kernel_id, state.kernel_state) == (None, None)  # these sessions have no ipython tool


@pytest.mark.asyncio
async def test_extensions_are_process_local(connection: Any) -> None:
    from prime_jupyter.connection.in_process import InProcessAgentConnection
    from prime_jupyter.connection.types import AgentConnectionUnsupportedError

    if not isinstance(connection, InProcessAgentConnection):
        with pytest.raises(AgentConnectionUnsupportedError, match="process-local") as caught:
            connection.extensions.commands()
        assert caught.value.feature == "extensions.commands"
        return
    names = [c.name for c in connection.extensions.commands()]
    assert {"model", "thinking", "resume", "tree", "quit"} <= set(names) and names == sorted(names)
    assert connection.extensions.get_argument_completions("model", "scripted/") == ["scripted/m1", "scripted/m2"]
    assert connection.extensions.get_argument_completions("/export", "h") == ["html"]
    assert connection.extensions.get_argument_completions("nosuch", "") == []
    connection.extensions.register_tool_renderer("ipython", lambda call: f"card for {call}")
    renderer = connection.extensions.get_tool_renderer("ipython")
    assert renderer is not None and renderer("x") == "card for x"
    assert connection.extensions.get_tool_renderer("bash") is None
