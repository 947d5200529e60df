"""`ViewFold.from_snapshot`: a front end that attaches draws the session as the snapshot shows it."""

from __future__ import annotations

from prime_jupyter.ai.types import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from prime_jupyter.protocol.common import ModelRef
from prime_jupyter.protocol.events import AgentEnd, MessageEnd, ToolExecutionEnd, ToolOutput
from prime_jupyter.protocol.hydration import NO_RESULT
from prime_jupyter.protocol.snapshot import AttachSnapshot, ConnectionState
from prime_jupyter.protocol.view import TextView, ToolView, ViewFold, is_running
from prime_jupyter.protocol.view.canonical import to_json

CALL = ToolCall(id="c1", name="ipython", arguments={"code": "1 + 1"})


def snapshot(*, running: bool, streaming: AssistantMessage | None = None) -> AttachSnapshot:
    asked = UserMessage(content="add", timestamp=1)
    reply = AssistantMessage(
        api="a", provider="p", model="m", content=[CALL], stop_reason="toolUse", usage=Usage(input=3), timestamp=2
    )
    state = ConnectionState(
        session_id="s",
        cwd="/tmp",
        session_name="Sums",
        model=ModelRef(provider="p", id="m"),
        thinking_level="low",
        is_streaming=running,
        context_window=1000,
    )
    return AttachSnapshot(state=state, messages=[asked, reply], entry_ids=["e1", "e2"], streaming_message=streaming)


def tool_of(fold: ViewFold) -> ToolView:
    part = fold.state.messages[1].parts[0]
    assert isinstance(part, ToolView)
    return part


def test_an_idle_session_shows_a_call_without_result_as_interrupted() -> None:
    fold = ViewFold.from_snapshot(snapshot(running=False))
    assert not is_running(fold.state) and (tool_of(fold).state, tool_of(fold).error_text) == ("output-error", NO_RESULT)


def test_a_running_session_shows_the_call_as_running_and_its_result_lands_in_place() -> None:
    fold = ViewFold.from_snapshot(snapshot(running=True))
    assert is_running(fold.state) and tool_of(fold).state == "input-available" and tool_of(fold).input == CALL.arguments
    fold.apply_event(ToolExecutionEnd("c1", "ipython", ToolOutput([TextContent(text="2")]), False))
    assert tool_of(fold).state == "output-available" and len(fold.state.messages) == 2


def test_the_header_comes_from_the_snapshot_and_the_total_usage_from_its_messages() -> None:
    state = ViewFold.from_snapshot(snapshot(running=False)).state
    assert (state.name, state.thinking_level, state.context_window) == ("Sums", "low", 1000)
    assert state.model == ModelRef(provider="p", id="m") and state.usage is not None and state.usage.input == 3


def test_the_message_still_streaming_keeps_streaming_and_ends_under_its_entry_id() -> None:
    partial = AssistantMessage(api="a", provider="p", model="m", content=[TextContent(text="Two")], timestamp=3)
    fold = ViewFold.from_snapshot(snapshot(running=True, streaming=partial))
    live = fold.state.messages[-1]
    assert live.streaming and [p.text for p in live.parts if isinstance(p, TextView)] == ["Two"]
    final = partial.model_copy(update={"usage": Usage(input=5, output=1)})
    fold.apply_event(MessageEnd(final, "e3"))
    fold.apply_event(AgentEnd([final]))
    ended = fold.state.messages[-1]
    assert (ended.id, ended.key, ended.streaming) == ("e3", live.key, False) and not is_running(fold.state)
    assert fold.state.context_window == 1000 and fold.state.usage is not None and fold.state.usage.input == 8


def long_transcript(turns: int, *, late_result_at: int | None = None) -> AttachSnapshot:
    """`turns` turns of a prompt, a tool call, its result and an answer; with `late_result_at`, the call of
    turn 0 is answered only in that turn (after its prompt)."""
    messages: list[Message] = []
    for turn in range(turns):
        call = ToolCall(id=f"c{turn}", name="bash", arguments={"command": f"echo {turn}"})
        messages.append(UserMessage(content=f"prompt {turn}", timestamp=turn * 10))
        messages.append(
            AssistantMessage(api="a", provider="p", model="m", content=[call], stop_reason="toolUse", timestamp=1)
        )
        if turn != 0 or late_result_at is None:
            messages.append(result(call.id, "ok"))
        if turn == late_result_at:
            messages.append(result("c0", "late"))
        answer = [TextContent(text=f"done {turn}")]
        messages.append(AssistantMessage(api="a", provider="p", model="m", content=answer, timestamp=1))
    state = ConnectionState(session_id="s", cwd="/tmp", model=ModelRef(provider="p", id="m"))
    return AttachSnapshot(state=state, messages=messages, entry_ids=[f"e{i}" for i in range(len(messages))])


def result(call_id: str, text: str) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name="bash", content=[TextContent(text=text)], timestamp=1)


def unfold_all(fold: ViewFold, tail: int) -> list[int]:
    added = []
    while fold.earlier:
        added.append(len(fold.unfold_earlier(tail)))
    return added


def test_a_session_folded_from_its_tail_then_unfolded_is_the_session_folded_whole() -> None:
    whole = ViewFold.from_snapshot(long_transcript(12)).state
    fold = ViewFold.from_snapshot(long_transcript(12), tail=5)
    assert len(fold.state.messages) == 6 and fold.earlier == 30  # the newest two turns; ten more to unfold
    assert unfold_all(fold, 5) == [6] * 5
    assert to_json(fold.state) == to_json(whole)


def test_a_tail_starts_before_the_call_its_results_answer() -> None:
    whole = ViewFold.from_snapshot(long_transcript(12, late_result_at=10)).state
    fold = ViewFold.from_snapshot(long_transcript(12, late_result_at=10), tail=5)
    assert len(fold.state.messages) == 36  # turn 10 answers turn 0's call: folded whole
    assert fold.earlier == 0 and to_json(fold.state) == to_json(whole)
    shorter = ViewFold.from_snapshot(long_transcript(12, late_result_at=3), tail=5)
    assert unfold_all(shorter, 5) == [6, 6, 6, 12]  # turns 0-3 fold together
    assert to_json(shorter.state) == to_json(ViewFold.from_snapshot(long_transcript(12, late_result_at=3)).state)
