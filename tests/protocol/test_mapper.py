"""The event mapper against every session event type, and live state vs. cold hydration."""

from __future__ import annotations

from itertools import count

from pydantic import JsonValue

from prime_jupyter.ai.events import (
    DoneEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from prime_jupyter.ai.types import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from prime_jupyter.protocol.events import (
    AgentEnd,
    AgentStart,
    AutoRetryEnd,
    AutoRetryStart,
    CompactionEnd,
    CompactionStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ModelChanged,
    QueueUpdate,
    SessionInfoChanged,
    ShellExecutionEnd,
    ShellExecutionOutput,
    ShellExecutionStart,
    ThinkingLevelChanged,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolOutput,
    TurnEnd,
    TurnStart,
)
from prime_jupyter.protocol.frames import (
    ChatFrame,
    CompactionFrame,
    DoneFrame,
    MessageEndFrame,
    MessageStartFrame,
    ModelFrame,
    QueueFrame,
    ReasoningDeltaFrame,
    RetryFrame,
    SessionInfoFrame,
    ShellFrame,
    StartFrame,
    TextDeltaFrame,
    ThinkingLevelFrame,
    ToolFrame,
    ToolInputDeltaFrame,
    UsageFrame,
)
from prime_jupyter.protocol.hydration import apply_live, hydrate
from prime_jupyter.protocol.mapper import EventMapper
from prime_jupyter.protocol.parts import ChatMessage, ImagePart, ReasoningPart, TextPart, ToolPart

SESSION = "sess-1"
ARGS: dict[str, JsonValue] = {"code": "print(1)"}


def mapper() -> EventMapper:
    ids = count(1)
    return EventMapper(SESSION, new_id=lambda: str(next(ids)), context_window=lambda p, m: 100_000)


def assistant(*content: TextContent | ThinkingContent | ToolCall, **fields: object) -> AssistantMessage:
    return AssistantMessage(api="anthropic-messages", provider="p", model="m", content=list(content), **fields)  # type: ignore[arg-type]


def run_frames(m: EventMapper, *events: object) -> list[ChatFrame]:
    return [frame for event in events for frame in m.map(event)]  # type: ignore[arg-type]


class Client:
    """What a panel does with frames: messages by id, live ids replaced at message-end, parts merged."""

    def __init__(self) -> None:
        self.messages: dict[str, ChatMessage] = {}

    def apply(self, frame: ChatFrame) -> None:
        if isinstance(frame, MessageEndFrame):
            self.messages.pop(frame.message_id, None)
            self.messages[frame.message.id] = frame.message
        elif isinstance(frame, ToolFrame) and frame.message_id in self.messages and frame.index is not None:
            self.messages[frame.message_id].parts[frame.index] = frame.part


# --- runs ---------------------------------------------------------------------------------------


def test_agent_start_opens_a_run_whose_id_the_done_frame_repeats() -> None:
    m = mapper()
    start, done = run_frames(m, AgentStart(), AgentEnd([]))
    assert isinstance(start, StartFrame) and isinstance(done, DoneFrame)
    assert start.run_id == done.run_id and start.run_id != "pending" and start.session_id == SESSION


def test_each_run_gets_its_own_id() -> None:
    m = mapper()
    first = run_frames(m, AgentStart(), AgentEnd([]))[0]
    second = run_frames(m, AgentStart(), AgentEnd([]))[0]
    assert isinstance(first, StartFrame) and isinstance(second, StartFrame) and first.run_id != second.run_id


def test_done_reports_the_stop_reason_and_error_of_the_last_assistant_message() -> None:
    failed = assistant(stop_reason="error", error_message="boom")
    done = run_frames(mapper(), AgentStart(), AgentEnd([assistant(), failed]))[-1]
    assert isinstance(done, DoneFrame) and (done.stop_reason, done.error_message) == ("error", "boom")


def test_turn_events_map_to_nothing() -> None:
    assert run_frames(mapper(), TurnStart(), TurnEnd(assistant(), [])) == []


# --- messages -----------------------------------------------------------------------------------


def test_user_message_appears_once_persisted_under_its_entry_id() -> None:
    m = mapper()
    image = ImageContent(data="aGk=", mime_type="image/png")
    user = UserMessage(content=[TextContent(text="look"), image])
    assert m.map(MessageStart(user)) == []
    (frame,) = m.map(MessageEnd(user, "entry-u"))
    assert isinstance(frame, MessageEndFrame) and frame.message_id == frame.message.id == "entry-u"
    assert frame.message.parts == [TextPart(text="look"), ImagePart(mime_type="image/png", data="aGk=")]


def test_streamed_blocks_carry_the_live_id_and_their_content_index() -> None:
    m = mapper()
    message = assistant(ThinkingContent(thinking="hm"), TextContent(text="hi"))
    frames = run_frames(
        m,
        AgentStart(),
        MessageStart(message),
        MessageUpdate(message, ThinkingDeltaEvent(0, "hm", message)),
        MessageUpdate(message, TextDeltaEvent(1, "hi", message)),
    )
    _, started, thinking, text = frames
    assert isinstance(started, MessageStartFrame) and started.message_id.startswith("run-")
    assert thinking == ReasoningDeltaFrame(message_id=started.message_id, index=0, delta="hm")
    assert text == TextDeltaFrame(message_id=started.message_id, index=1, delta="hi")


def test_message_end_maps_the_live_id_to_the_entry_id() -> None:
    m = mapper()
    message = assistant(TextContent(text="hi"))
    frames = run_frames(m, AgentStart(), MessageStart(message), MessageEnd(message, "entry-a"))
    started, ended = frames[1], frames[2]
    assert isinstance(started, MessageStartFrame) and isinstance(ended, MessageEndFrame)
    assert ended.message_id == started.message_id and ended.message.id == "entry-a"


def test_message_end_without_an_entry_id_keeps_the_live_id() -> None:
    m = mapper()
    message = assistant(TextContent(text="hi"))
    ended = run_frames(m, AgentStart(), MessageStart(message), MessageEnd(message))[-1]
    assert isinstance(ended, MessageEndFrame) and ended.message.id == ended.message_id


def test_a_delta_without_message_start_still_opens_a_message_first() -> None:
    message = assistant(TextContent(text="x"))
    frames = mapper().map(MessageUpdate(message, TextDeltaEvent(0, "x", message)))
    assert [f.type for f in frames] == ["message-start", "text-delta"]


def test_other_stream_events_map_to_nothing() -> None:
    m = mapper()
    message = assistant(TextContent(text="x"))
    m.map(MessageStart(message))
    assert m.map(MessageUpdate(message, DoneEvent("stop", message))) == []


def test_parts_keep_the_order_the_model_wrote_them_in() -> None:
    message = assistant(
        ThinkingContent(thinking="plan"),
        TextContent(text="first"),
        ToolCall(id="c1", name="ipython", arguments=ARGS),
        TextContent(text="then"),
    )
    ended = run_frames(mapper(), AgentStart(), MessageStart(message), MessageEnd(message, "e"))[-1]
    assert isinstance(ended, MessageEndFrame)
    assert [p.type for p in ended.message.parts] == ["reasoning", "text", "tool-IPython", "text"]


# --- tool input streaming -----------------------------------------------------------------------


def test_tool_call_streams_its_input_then_becomes_available() -> None:
    m = mapper()
    call = ToolCall(id="c1", name="bash", arguments={})
    message = assistant(call)
    m.map(MessageStart(message))
    started = m.map(MessageUpdate(message, ToolCallStartEvent(0, message)))
    delta = m.map(MessageUpdate(message, ToolCallDeltaEvent(0, '{"command": "ls"}', message)))
    done_call = ToolCall(id="c1", name="bash", arguments={"command": "ls"})
    ended = m.map(MessageUpdate(message, ToolCallEndEvent(0, done_call, message)))
    assert isinstance(started[0], ToolFrame) and started[0].part.state == "input-streaming"
    assert started[0].part.type == "tool-Bash"
    assert delta == [
        ToolInputDeltaFrame(message_id=started[0].message_id, index=0, tool_call_id="c1", delta='{"command": "ls"}')
    ]
    assert isinstance(ended[0], ToolFrame) and ended[0].part.state == "input-available"
    assert ended[0].part.input == {"command": "ls"}


# --- tool execution -----------------------------------------------------------------------------


def _after_tool_call(m: EventMapper) -> None:
    message = assistant(TextContent(text="run"), ToolCall(id="c1", name="ipython", arguments=ARGS))
    run_frames(m, AgentStart(), MessageStart(message), MessageEnd(message, "entry-a"))


def test_tool_frames_use_the_entry_id_and_index_of_the_calling_message() -> None:
    m = mapper()
    _after_tool_call(m)
    (frame,) = m.map(ToolExecutionStart("c1", "ipython", ARGS))
    assert isinstance(frame, ToolFrame) and (frame.message_id, frame.index) == ("entry-a", 1)
    assert frame.part.state == "input-available" and frame.part.input == ARGS


def test_tool_updates_carry_the_accumulated_output_and_keep_the_input() -> None:
    m = mapper()
    _after_tool_call(m)
    m.map(ToolExecutionStart("c1", "ipython", ARGS))
    m.map(ToolExecutionUpdate("c1", "ipython", ARGS, ToolOutput([TextContent(text="a")])))
    (frame,) = m.map(ToolExecutionUpdate("c1", "ipython", ARGS, ToolOutput([TextContent(text="ab")])))
    assert isinstance(frame, ToolFrame) and frame.part.state == "input-available"
    assert frame.part.output is not None and frame.part.output.content == [TextContent(text="ab")]
    assert frame.part.input == ARGS


def test_tool_end_gives_the_output_with_its_details() -> None:
    m = mapper()
    _after_tool_call(m)
    details: JsonValue = {"outputs": [{"output_type": "stream", "text": "1\n"}]}
    (frame,) = m.map(ToolExecutionEnd("c1", "ipython", ToolOutput([TextContent(text="1")], details), False))
    assert isinstance(frame, ToolFrame) and frame.part.state == "output-available"
    assert frame.part.output is not None and frame.part.output.details == details and frame.part.input == ARGS


def test_tool_error_gives_output_error_with_the_text_the_model_saw() -> None:
    m = mapper()
    _after_tool_call(m)
    (frame,) = m.map(ToolExecutionEnd("c1", "ipython", ToolOutput([TextContent(text="NameError: x")]), True))
    assert (
        isinstance(frame, ToolFrame) and frame.part.state == "output-error" and frame.part.error_text == "NameError: x"
    )


def test_tool_result_messages_map_to_nothing() -> None:
    result = ToolResultMessage(tool_call_id="c1", tool_name="ipython")
    assert run_frames(mapper(), MessageStart(result), MessageEnd(result, "entry-r")) == []


def test_a_tool_the_mapper_never_saw_called_still_gets_a_part() -> None:
    (frame,) = mapper().map(ToolExecutionStart("c9", "read", {"path": "a.txt"}))
    assert isinstance(frame, ToolFrame) and frame.part.type == "tool-Read" and frame.part.input == {"path": "a.txt"}


# --- usage --------------------------------------------------------------------------------------


def test_usage_frames_count_per_message_and_in_total() -> None:
    m = mapper()
    m.map(AgentStart())
    first = m.map(MessageEnd(assistant(usage=Usage(input=100, output=10, total_tokens=110)), "a1"))[-1]
    second = m.map(MessageEnd(assistant(usage=Usage(input=200, output=20, total_tokens=220)), "a2"))[-1]
    assert isinstance(first, UsageFrame) and isinstance(second, UsageFrame)
    assert (second.message_id, second.context_tokens, second.context_window) == ("a2", 220, 100_000)
    assert (second.total.input, second.total.output) == (300, 30)


def test_a_message_that_used_no_tokens_has_no_usage_frame() -> None:
    frames = mapper().map(MessageEnd(assistant(stop_reason="error", error_message="401"), "a1"))
    assert [f.type for f in frames] == ["message-end"]


def test_usage_total_starts_from_what_the_session_cost_before() -> None:
    m = EventMapper(SESSION, usage_total=Usage(input=1000, output=1))
    frame = m.map(MessageEnd(assistant(usage=Usage(input=5, output=5)), "a"))[-1]
    assert isinstance(frame, UsageFrame) and frame.total.input == 1005 and frame.context_window is None


# --- session events -----------------------------------------------------------------------------


def test_retry_events_map_to_retry_frames() -> None:
    frames = run_frames(mapper(), AutoRetryStart(1, 3, 2000, "overloaded"), AutoRetryEnd(False, 3, "gave up"))
    assert frames == [
        RetryFrame(phase="start", attempt=1, max_attempts=3, delay_ms=2000, error_message="overloaded"),
        RetryFrame(phase="end", attempt=3, success=False, final_error="gave up"),
    ]


def test_compaction_events_map_to_compaction_frames() -> None:
    end = CompactionEnd("overflow", "the summary", 150_000, will_retry=True)
    frames = run_frames(mapper(), CompactionStart("overflow"), end)
    assert frames == [
        CompactionFrame(phase="start", reason="overflow"),
        CompactionFrame(
            phase="end", reason="overflow", aborted=False, will_retry=True, summary="the summary", tokens_before=150_000
        ),
    ]


def test_queue_session_model_and_thinking_events() -> None:
    frames = run_frames(
        mapper(),
        QueueUpdate(["now"], ["later"]),
        SessionInfoChanged("analysis"),
        ModelChanged("anthropic", "claude"),
        ThinkingLevelChanged("high"),
    )
    assert frames == [
        QueueFrame(steering=["now"], follow_up=["later"]),
        SessionInfoFrame(name="analysis"),
        ModelFrame(provider="anthropic", id="claude", context_window=100_000),
        ThinkingLevelFrame(level="high"),
    ]


def test_shell_execution_events_map_to_shell_frames() -> None:
    frames = run_frames(
        mapper(),
        ShellExecutionStart("x1", "pytest", include_in_context=False),
        ShellExecutionOutput("x1", "collected 3 items\n", skipped=10),
        ShellExecutionEnd("x1", "pytest", "3 passed", exit_code=None, cancelled=True, entry_id="e4"),
    )
    assert frames == [
        ShellFrame(phase="start", execution_id="x1", command="pytest", include_in_context=False),
        ShellFrame(phase="output", execution_id="x1", chunk="collected 3 items\n", skipped=10),
        ShellFrame(
            phase="end",
            execution_id="x1",
            command="pytest",
            output="3 passed",
            cancelled=True,
            truncated=False,
            include_in_context=True,
            entry_id="e4",
        ),
    ]


# --- live state and hydration -------------------------------------------------------------------


def test_live_is_none_between_runs() -> None:
    m = mapper()
    assert m.live() is None
    run_frames(m, AgentStart(), AgentEnd([]))
    assert m.live() is None


def test_live_shows_the_streaming_message_under_its_live_id() -> None:
    m = mapper()
    message = assistant(TextContent(text="par"), ToolCall(id="c1", name="ipython"))
    frames = run_frames(m, AgentStart(), MessageStart(message), MessageUpdate(message, ToolCallStartEvent(1, message)))
    live = m.live()
    assert live is not None and live.message is not None and live.message.id == frames[1].message_id  # type: ignore[union-attr]
    assert live.message.parts[0] == TextPart(text="par") and live.message.stop_reason is None
    assert isinstance(live.message.parts[1], ToolPart) and live.message.parts[1].state == "input-streaming"


def test_live_shows_running_tools_with_their_partial_output() -> None:
    m = mapper()
    _after_tool_call(m)
    m.map(ToolExecutionUpdate("c1", "ipython", ARGS, ToolOutput([TextContent(text="so far")])))
    live = m.live()
    assert live is not None and live.message is None and [t.part.tool_call_id for t in live.tools] == ["c1"]
    assert live.tools[0].part.output is not None and live.tools[0].part.output.content[0] == TextContent(text="so far")


def _a_run(m: EventMapper, client: Client) -> tuple[list[Message], list[str]]:
    """A user prompt, a reply with thinking, text and a tool call, the tool, a final reply."""
    user = UserMessage(content="go")
    first = assistant(
        ThinkingContent(thinking="think"),
        TextContent(text="running"),
        ToolCall(id="c1", name="ipython", arguments=ARGS),
        stop_reason="toolUse",
    )
    output = ToolOutput([TextContent(text="1")], {"outputs": [{"output_type": "stream", "text": "1\n"}]})
    result = ToolResultMessage(tool_call_id="c1", tool_name="ipython", content=output.content, details=output.details)
    last = assistant(TextContent(text="done"))
    events = [
        AgentStart(),
        MessageStart(user),
        MessageEnd(user, "u1"),
        MessageStart(first),
        MessageUpdate(first, TextDeltaEvent(1, "running", first)),
        MessageEnd(first, "a1"),
        ToolExecutionStart("c1", "ipython", ARGS),
        ToolExecutionEnd("c1", "ipython", output, False),
        MessageStart(result),
        MessageEnd(result, "r1"),
        MessageStart(last),
        MessageEnd(last, "a2"),
        AgentEnd([user, first, result, last]),
    ]
    for frame in run_frames(m, *events):
        client.apply(frame)
    return [user, first, result, last], ["u1", "a1", "r1", "a2"]


def test_a_live_client_ends_with_what_cold_hydration_gives() -> None:
    client = Client()
    messages, entry_ids = _a_run(mapper(), client)
    assert list(client.messages.values()) == hydrate(messages, entry_ids)


def test_hydration_mid_run_with_live_overlay_shows_the_running_tool() -> None:
    m = mapper()
    _after_tool_call(m)
    m.map(ToolExecutionUpdate("c1", "ipython", ARGS, ToolOutput([TextContent(text="so far")])))
    persisted = assistant(TextContent(text="run"), ToolCall(id="c1", name="ipython", arguments=ARGS))
    messages = apply_live(hydrate([persisted], ["entry-a"]), m.live())
    tool = messages[0].parts[1]
    assert isinstance(tool, ToolPart) and tool.state == "input-available" and tool.output is not None


def test_reasoning_is_forwarded_as_a_collapsed_part() -> None:
    message = assistant(ThinkingContent(thinking="secret plan"), TextContent(text="ok"))
    ended = run_frames(mapper(), MessageStart(message), MessageEnd(message, "a"))[-1]
    assert isinstance(ended, MessageEndFrame) and ended.message.parts[0] == ReasoningPart(text="secret plan")
