"""Every chat frame survives NDJSON and SSE; unknown frame types are skipped, broken ones are not."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from prime_jupyter.ai.types import TextContent, Usage
from prime_jupyter.protocol.frames import (
    FRAME_TYPES,
    ChatFrame,
    CompactionFrame,
    ConnectedFrame,
    DoneFrame,
    ErrorFrame,
    MessageEndFrame,
    MessageStartFrame,
    ModelFrame,
    NotifyFrame,
    QuestionFrame,
    QuestionResolvedFrame,
    QueueFrame,
    ReasoningDeltaFrame,
    ResyncRequiredFrame,
    RetryFrame,
    SessionInfoFrame,
    ShellFrame,
    StartFrame,
    StatusFrame,
    TextDeltaFrame,
    ThinkingLevelFrame,
    ToolFrame,
    ToolInputDeltaFrame,
    UsageFrame,
    WidgetFrame,
    parse_frame,
)
from prime_jupyter.protocol.framing import SseDecoder, encode_ndjson, encode_sse
from prime_jupyter.protocol.parts import ChatMessage, TextPart, ToolOutputData, ToolPart
from prime_jupyter.protocol.questions import QuestionOption, SelectAnswer

PART = ToolPart(
    type="tool-IPython",
    tool_call_id="c1",
    tool_name="ipython",
    state="output-available",
    input={"code": "x"},
    output=ToolOutputData(content=[TextContent(text="1")], details={"outputs": []}),
)
EXAMPLES: list[ChatFrame] = [
    StartFrame(run_id="run-1", session_id="s"),
    MessageStartFrame(message_id="run-1-m1", created_at=1),
    TextDeltaFrame(message_id="m", index=0, delta="a\u2028b"),
    ReasoningDeltaFrame(message_id="m", index=0, delta="hm"),
    ToolInputDeltaFrame(message_id="m", index=1, tool_call_id="c1", delta='{"co'),
    ToolFrame(message_id="m", index=1, part=PART),
    MessageEndFrame(message_id="m", message=ChatMessage(id="e1", role="assistant", parts=[TextPart(text="hi"), PART])),
    UsageFrame(message_id="e1", usage=Usage(input=1), total=Usage(input=2), context_tokens=1, context_window=10),
    DoneFrame(run_id="run-1", session_id="s", stop_reason="aborted", error_message="stopped"),
    ErrorFrame(message="busy", reason="busy", retryable=True),
    RetryFrame(phase="start", attempt=1, max_attempts=3, delay_ms=100, error_message="529"),
    CompactionFrame(phase="end", reason="threshold", aborted=False, will_retry=False, summary="s", tokens_before=9),
    QueueFrame(steering=["a"], follow_up=["b"]),
    ShellFrame(phase="start", execution_id="x1", command="pip install pandas", include_in_context=True),
    ShellFrame(phase="output", execution_id="x1", chunk="Collecting pandas\n", skipped=3),
    ShellFrame(phase="end", execution_id="x1", command="ls", output="a", exit_code=0, cancelled=False, entry_id="e2"),
    QuestionFrame(
        id="q1",
        kind="select",
        title="Pick",
        options=[QuestionOption(id="o1", label="One")],
        timeout_ms=60_000,
        expires_at=61_000,
    ),
    QuestionResolvedFrame(id="q1", answer=SelectAnswer(option_ids=["o1"])),
    QuestionResolvedFrame(id="q2", cancelled="timeout"),
    NotifyFrame(level="warning", message="careful"),
    StatusFrame(key="kernel", text="busy"),
    WidgetFrame(key="todo", lines=["- a"]),
    SessionInfoFrame(name="analysis"),
    ModelFrame(provider="anthropic", id="claude", context_window=200_000),
    ThinkingLevelFrame(level="high"),
    ResyncRequiredFrame(reason="history-changed"),
    ConnectedFrame(session_id="s", protocol_version=1, schema_revision=1, capabilities=["x"], cursor=7),
]


def test_the_examples_cover_every_frame_type() -> None:
    assert {frame.type for frame in EXAMPLES} == FRAME_TYPES


@pytest.mark.parametrize("frame", EXAMPLES, ids=lambda f: f.type)
def test_a_frame_round_trips_through_ndjson(frame: ChatFrame) -> None:
    line = encode_ndjson(frame)
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and parse_frame(line) == frame


@pytest.mark.parametrize("frame", EXAMPLES, ids=lambda f: f.type)
def test_a_frame_round_trips_through_sse(frame: ChatFrame) -> None:
    (message,) = SseDecoder().feed(encode_sse(frame, 42))
    assert message.id == "42" and parse_frame(message.data) == frame


def test_a_cleared_status_round_trips() -> None:
    assert parse_frame(encode_ndjson(StatusFrame(key="k", text=None))) == StatusFrame(key="k")


def test_a_frame_type_this_version_does_not_know_is_skipped() -> None:
    assert parse_frame(b'{"type":"hologram","x":1}') is None


def test_unknown_fields_of_a_known_frame_are_ignored() -> None:
    frame = parse_frame(b'{"type":"queue","steering":[],"followUp":[],"priority":3}')
    assert frame == QueueFrame()


def test_a_known_frame_with_bad_fields_raises() -> None:
    with pytest.raises(ValidationError):
        parse_frame(b'{"type":"text-delta","messageId":"m"}')


def test_a_frame_without_type_raises() -> None:
    with pytest.raises(ValidationError):
        parse_frame(b'{"delta":"x"}')


def test_keys_are_camel_case_on_the_wire() -> None:
    assert b'"messageId":"m","index":1,"toolCallId":"c1"' in encode_ndjson(EXAMPLES[4])


def test_a_question_resolved_needs_no_answer_when_cancelled() -> None:
    assert b'"cancelled":"timeout"' in encode_ndjson(QuestionResolvedFrame(id="q", cancelled="timeout"))
