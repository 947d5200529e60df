"""The Python view fold on hand-written frames: the cases of the panel's `model.test.ts`, one for one."""

from __future__ import annotations

import json

from pydantic import JsonValue

from prime_jupyter.protocol.frames import ChatFrame, parse_frame
from prime_jupyter.protocol.requests import ChatSessionResponse
from prime_jupyter.protocol.view import (
    MAX_NOTIFY,
    Text,
    TextView,
    ToolView,
    ViewState,
    add_local_message,
    apply_frames,
    empty_state,
    from_session,
    is_running,
    last_user_text,
    latest_kernel_id,
    question_for,
)

SESSION = "s1"


def frame(data: dict[str, JsonValue]) -> ChatFrame:
    parsed = parse_frame(json.dumps(data))
    assert parsed is not None
    return parsed


def user(message_id: str, text: str) -> dict[str, JsonValue]:
    return {"id": message_id, "role": "user", "parts": [{"type": "text", "text": text}]}


def run(state: ViewState, *frames: dict[str, JsonValue]) -> ViewState:
    return apply_frames(state, [frame(f) for f in frames])


def test_the_optimistic_copy_is_replaced_not_doubled_when_the_server_confirms_it() -> None:
    sent = add_local_message(empty_state(SESSION), "local-1", "hello", 1)
    state = run(
        sent,
        {"type": "start", "runId": "r1", "sessionId": SESSION},
        {"type": "message-end", "messageId": "e1", "message": user("e1", "hello")},
    )
    assert [(m.id, m.pending, m.key) for m in state.messages] == [("e1", False, "local-1")]


def test_a_message_sent_by_another_client_is_appended() -> None:
    state = run(empty_state(SESSION), {"type": "message-end", "messageId": "e9", "message": user("e9", "from the TUI")})
    assert [m.id for m in state.messages] == ["e9"]


def test_the_same_message_end_twice_leaves_one_message() -> None:
    end: dict[str, JsonValue] = {"type": "message-end", "messageId": "e1", "message": user("e1", "hi")}
    assert len(run(empty_state(SESSION), end, end).messages) == 1


def test_a_request_that_could_not_start_drops_the_optimistic_copy_and_offers_a_retry() -> None:
    sent = add_local_message(empty_state(SESSION), "local-1", "hello", 1)
    state = run(sent, {"type": "error", "message": "No API key for anthropic", "reason": "no-api-key"})
    assert state.messages == () and [(n.level, n.action) for n in state.notices] == [("error", "retry")]


def test_start_and_done_bracket_a_run_and_done_empties_the_queue() -> None:
    started = run(
        empty_state(SESSION),
        {"type": "start", "runId": "r1", "sessionId": SESSION},
        {"type": "queue", "steering": ["faster"], "followUp": ["then plot"]},
    )
    assert is_running(started) and (started.steering, started.follow_up) == (("faster",), ("then plot",))
    done = run(started, {"type": "done", "runId": "r1", "sessionId": SESSION, "stopReason": "stop"})
    assert not is_running(done) and (done.steering, done.follow_up) == ((), ())


def test_questions_are_listed_until_resolved_and_found_by_their_tool_call() -> None:
    asked = run(
        empty_state(SESSION),
        {
            "type": "question",
            "id": "q1",
            "kind": "confirm",
            "title": "Overwrite data.csv?",
            "timeoutMs": 60000,
            "expiresAt": 1760000060000,
            "toolCallId": "call-1",
        },
    )
    found = question_for(asked, "call-1")
    assert found is not None and found.title == "Overwrite data.csv?"
    again = run(
        asked, {"type": "question", "id": "q1", "kind": "confirm", "title": "x", "timeoutMs": 1, "expiresAt": 1}
    )
    assert len(again.questions) == 1
    assert run(again, {"type": "question-resolved", "id": "q1", "cancelled": "timeout"}).questions == ()


def test_status_and_widget_frames_set_and_clear_their_keys() -> None:
    state = run(
        empty_state(SESSION),
        {"type": "status", "key": "git", "text": "on main"},
        {"type": "widget", "key": "todo", "lines": ["- [ ] plot"]},
    )
    assert (state.statuses, state.widgets) == ({"git": "on main"}, {"todo": ("- [ ] plot",)})
    cleared = run(state, {"type": "status", "key": "git"}, {"type": "widget", "key": "todo", "lines": None})
    assert (cleared.statuses, cleared.widgets) == ({}, {})


def test_only_the_last_notifications_are_kept_newest_last() -> None:
    state = run(empty_state(SESSION), *({"type": "notify", "message": f"n{i}"} for i in range(8)))
    assert [n.text for n in state.notices] == [f"n{i}" for i in range(8 - MAX_NOTIFY, 8)]


def test_compaction_start_and_end_share_one_notice() -> None:
    state = run(
        empty_state(SESSION),
        {"type": "compaction", "phase": "start", "reason": "threshold"},
        {"type": "compaction", "phase": "end", "reason": "threshold", "tokensBefore": 150000},
    )
    assert [n.text for n in state.notices] == ["Context compacted (150000 tokens before)."]


def test_a_retry_delay_rounds_half_up_like_javascript() -> None:
    state = run(empty_state(SESSION), {"type": "retry", "phase": "start", "attempt": 1, "delayMs": 2500})
    assert [n.text for n in state.notices] == ["Retrying in 3 s (attempt 1)"]


def test_resync_required_is_recorded_and_a_new_run_clears_it() -> None:
    state = run(empty_state(SESSION), {"type": "resync-required", "reason": "history-changed"})
    assert state.resync == "history-changed"
    assert run(state, {"type": "start", "runId": "r2", "sessionId": SESSION}).resync is None


def test_session_info_model_and_thinking_level_frames_update_the_header_state() -> None:
    state = run(
        empty_state(SESSION),
        {"type": "session-info", "name": "Sales analysis"},
        {"type": "model", "provider": "scripted", "id": "m1", "contextWindow": 32000},
        {"type": "thinking-level", "level": "high"},
    )
    assert state.name == "Sales analysis" and state.thinking_level == "high" and state.context_window == 32000
    assert state.model is not None and (state.model.provider, state.model.id) == ("scripted", "m1")


def test_a_tool_frame_for_a_call_that_is_nowhere_yet_becomes_a_message_of_its_own() -> None:
    part: dict[str, JsonValue] = {
        "type": "tool-Bash",
        "toolCallId": "c7",
        "toolName": "bash",
        "state": "input-available",
        "input": {"command": "ls"},
    }
    state = run(empty_state(SESSION), {"type": "tool", "messageId": "m7", "part": part})
    assert [(m.id, len(m.parts)) for m in state.messages] == [("m7", 1)]


def test_the_kernel_id_comes_from_the_newest_ipython_result_and_retry_resends_the_last_user_text() -> None:
    part: dict[str, JsonValue] = {
        "type": "tool-IPython",
        "toolCallId": "c1",
        "toolName": "ipython",
        "state": "output-available",
        "output": {"content": [], "details": {"kernelId": "k-123"}},
    }
    state = run(
        add_local_message(empty_state(SESSION), "l1", "plot it", 1), {"type": "tool", "messageId": "m1", "part": part}
    )
    assert latest_kernel_id(state) == "k-123" and last_user_text(state) == "plot it"


def test_unchanged_messages_keep_their_identity_when_another_one_streams() -> None:
    before = run(
        empty_state(SESSION),
        {"type": "message-end", "messageId": "e1", "message": user("e1", "hi")},
        {"type": "message-start", "messageId": "live", "role": "assistant"},
    )
    after = run(before, {"type": "text-delta", "messageId": "live", "index": 0, "delta": "Hel"})
    assert after.messages[0] is before.messages[0] and after.messages[1] is not before.messages[1]


def test_tool_input_streams_into_the_draft_and_goes_once_the_input_is_complete() -> None:
    streaming: dict[str, JsonValue] = {
        "type": "tool-Bash",
        "toolCallId": "c1",
        "toolName": "bash",
        "state": "input-streaming",
    }
    state = run(
        empty_state(SESSION),
        {"type": "message-start", "messageId": "live", "role": "assistant"},
        {"type": "tool", "messageId": "live", "index": 0, "part": streaming},
        {"type": "tool-input-delta", "messageId": "live", "index": 0, "toolCallId": "c1", "delta": '{"command": "l'},
        {"type": "tool-input-delta", "messageId": "live", "index": 0, "toolCallId": "c1", "delta": 's"}'},
    )
    tool = state.messages[0].parts[0]
    assert isinstance(tool, ToolView) and tool.draft == '{"command": "ls"}'
    done = run(
        state, {"type": "tool", "messageId": "live", "index": 0, "part": {**streaming, "state": "input-available"}}
    )
    finished = done.messages[0].parts[0]
    assert isinstance(finished, ToolView) and finished.draft is None


def test_an_older_state_keeps_its_text_when_a_newer_one_grows() -> None:
    start = run(empty_state(SESSION), {"type": "text-delta", "messageId": "m", "index": 0, "delta": "a"})
    one = run(start, {"type": "text-delta", "messageId": "m", "index": 0, "delta": "b"})
    other = run(start, {"type": "text-delta", "messageId": "m", "index": 0, "delta": "c"})
    texts = [s.messages[0].parts[0] for s in (start, one, other)]
    assert texts == [TextView(Text("a")), TextView(Text("ab")), TextView(Text("ac"))]


def hydration(messages: list[dict[str, JsonValue]], live: dict[str, JsonValue] | None) -> ChatSessionResponse:
    session: dict[str, JsonValue] = {
        "sessionId": SESSION,
        "title": "t",
        "cwd": "/",
        "createdAt": 0,
        "updatedAt": 0,
        "status": "running",
    }
    run_: JsonValue = {"runId": "r1", "message": live} if live is not None else None
    return ChatSessionResponse.model_validate({"session": session, "messages": messages, "live": run_})


def test_a_resync_keeps_the_render_keys_of_the_sent_message_and_of_the_answer_whose_id_changed() -> None:
    before = run(
        add_local_message(empty_state(SESSION), "local-1", "hello", 1),
        {"type": "start", "runId": "r1", "sessionId": SESSION},
        {"type": "message-start", "messageId": "live-1", "role": "assistant"},
        {"type": "text-delta", "messageId": "live-1", "index": 0, "delta": "Hi"},
    )
    answer: dict[str, JsonValue] = {"id": "e2", "role": "assistant", "parts": [{"type": "text", "text": "Hi there"}]}
    after = from_session(hydration([user("e1", "hello"), answer], None), before)
    assert [(m.id, m.key) for m in after.messages] == [("e1", "local-1"), ("e2", "live-1")]


def test_a_hydration_of_another_session_takes_no_keys_from_the_previous_one() -> None:
    before = add_local_message(empty_state("other"), "local-1", "hello", 1)
    after = from_session(hydration([user("e1", "hello")], None), before)
    assert [m.key for m in after.messages] == ["e1"]


def test_a_hydration_taken_mid_run_marks_the_live_message_as_streaming_and_the_run_as_going_on() -> None:
    live: dict[str, JsonValue] = {"id": "live-1", "role": "assistant", "parts": [{"type": "text", "text": "Hal"}]}
    state = from_session(hydration([user("e1", "q"), live], live))
    assert [m.streaming for m in state.messages] == [False, True] and is_running(state)
