"""Session events survive their JSON (codec.py) and come back whole, partial messages rebuilt from deltas."""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import count, islice

from prime_jupyter.ai.events import (
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from prime_jupyter.ai.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from prime_jupyter.protocol.codec import event_to_json, event_to_wire
from prime_jupyter.protocol.event_decoder import EventDecoder
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
    SessionEvent,
    SessionInfoChanged,
    ThinkingLevelChanged,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolOutput,
    TurnEnd,
    TurnStart,
)
from prime_jupyter.protocol.mapper import EventMapper


def through_json(decoder: EventDecoder, event: SessionEvent) -> SessionEvent | None:
    return decoder.decode(json.loads(event_to_json(event)))


def a_run() -> Iterator[SessionEvent]:
    """A run as the runtime emits it: the partial message grows between events, so consume lazily."""
    user = UserMessage(content=[TextContent(text="plot it"), ImageContent(data="aGk=", mime_type="image/png")])
    reply = AssistantMessage(api="anthropic-messages", provider="p", model="m", timestamp=7)
    yield from [AgentStart(), TurnStart(), MessageStart(user), MessageEnd(user, "u1"), MessageStart(reply)]
    thinking, text = ThinkingContent(thinking=""), TextContent(text="")
    reply.content.append(thinking)
    yield MessageUpdate(reply, ThinkingStartEvent(0, reply))
    thinking.thinking += "hmm"
    yield MessageUpdate(reply, ThinkingDeltaEvent(0, "hmm", reply))
    reply.content.append(text)
    yield MessageUpdate(reply, TextStartEvent(1, reply))
    for piece in ("Plot", "ting\u2028now"):
        text.text += piece
        yield MessageUpdate(reply, TextDeltaEvent(1, piece, reply))
    yield MessageUpdate(reply, TextEndEvent(1, "Plotting\u2028now", reply))
    reply.content.append(ToolCall(id="c1", name="ipython", arguments={"code": "plot()"}))
    reply.stop_reason, reply.usage = "toolUse", Usage(input=10, output=5, total_tokens=15)
    yield MessageEnd(reply, "a1")
    output = ToolOutput([TextContent(text="ok")], {"outputs": [{"output_type": "display_data"}]})
    result = ToolResultMessage(tool_call_id="c1", tool_name="ipython", content=output.content, details=output.details)
    yield from [
        ToolExecutionStart("c1", "ipython", {"code": "plot()"}),
        ToolExecutionUpdate("c1", "ipython", {"code": "plot()"}, ToolOutput([TextContent(text="o")])),
        ToolExecutionEnd("c1", "ipython", output, False),
        MessageStart(result),
        MessageEnd(result, "r1"),
        TurnEnd(reply, [result]),
        AutoRetryStart(1, 3, 100, "529"),
        AutoRetryEnd(True, 1),
        QueueUpdate(["a"], []),
        AgentEnd([user, reply, result]),
        CompactionStart("threshold"),
        CompactionEnd("threshold", "sum", 1000),
        SessionInfoChanged("n"),
        ThinkingLevelChanged("low"),
        ModelChanged("p", "m2"),
    ]


def mapper() -> EventMapper:
    ids = count(1)
    return EventMapper("s", new_id=lambda: str(next(ids)))


def test_a_decoded_stream_maps_to_the_same_frames_as_the_original() -> None:
    original, decoded, decoder = mapper(), mapper(), EventDecoder()
    for event in a_run():
        again = through_json(decoder, event)
        assert again is not None
        assert decoded.map(again) == original.map(event)


def test_events_without_deltas_come_back_equal() -> None:
    decoder = EventDecoder()
    for event in a_run():
        again = through_json(decoder, event)
        if not isinstance(event, MessageUpdate | MessageStart):
            assert again == event


def test_every_event_serializes_to_its_wire_form() -> None:
    """The JSON line and the wire dict are made by different paths (pydantic-core vs. to_wire)."""
    for event in a_run():
        assert json.loads(event_to_json(event)) == event_to_wire(event)


def test_a_lone_surrogate_is_replaced_rather_than_failing() -> None:
    broken = UserMessage(content="half a pair: \ud83d, a whole one: \ud83d\ude00", timestamp=1)
    line = event_to_json(MessageEnd(broken, "u1"))
    assert json.loads(line.encode())["message"]["content"] == "half a pair: \ufffd, a whole one: \U0001f600"
    reply = AssistantMessage(api="a", provider="p", model="m")
    delta = event_to_json(MessageUpdate(reply, TextDeltaEvent(0, "\ud83d", reply)))
    assert json.loads(delta.encode())["assistantMessageEvent"]["delta"] == "\ufffd"


def test_the_partial_message_is_rebuilt_from_deltas_and_shared() -> None:
    decoder = EventDecoder()
    updates = [through_json(decoder, e) for e in islice(a_run(), 11)]
    last = updates[-2]
    assert isinstance(last, MessageUpdate) and last.message.text() == "Plotting\u2028now"
    assert last.message is last.assistant_message_event.partial  # type: ignore[union-attr]
    assert isinstance(last.message.content[0], ThinkingContent) and last.message.content[0].thinking == "hmm"


def test_tool_call_arguments_are_parsed_as_they_stream() -> None:
    reply = AssistantMessage(api="a", provider="p", model="m")
    decoder = EventDecoder()
    decoder.decode(json.loads(event_to_json(MessageStart(reply))))
    reply.content.append(ToolCall(id="c1", name="bash"))
    decoder.decode({"type": "message_update", "assistantMessageEvent": {"type": "toolcall_start", "contentIndex": 0,
                    "id": "c1", "name": "bash"}})  # fmt: skip
    update = through_json(decoder, MessageUpdate(reply, ToolCallDeltaEvent(0, '{"command": "l', reply)))
    assert isinstance(update, MessageUpdate)
    call = update.message.content[0]
    assert isinstance(call, ToolCall) and (call.id, call.name, call.arguments) == ("c1", "bash", {"command": "l"})
    done = ToolCall(id="c1", name="bash", arguments={"command": "ls"})
    end = through_json(decoder, MessageUpdate(reply, ToolCallEndEvent(0, done, reply)))
    assert isinstance(end, MessageUpdate) and end.assistant_message_event == ToolCallEndEvent(0, done, end.message)


def test_toolcall_start_without_id_and_name_still_decodes() -> None:
    reply = AssistantMessage(api="a", provider="p", model="m")
    decoder = EventDecoder()
    decoder.decode(json.loads(event_to_json(MessageStart(reply))))
    reply.content.append(ToolCall(id="c1", name="bash"))
    update = through_json(decoder, MessageUpdate(reply, ToolCallStartEvent(0, reply)))
    assert isinstance(update, MessageUpdate) and isinstance(update.message.content[0], ToolCall)


def test_an_unknown_event_type_decodes_to_none() -> None:
    assert EventDecoder().decode({"type": "hologram"}) is None
    assert EventDecoder().decode({"type": "message_update", "assistantMessageEvent": {"type": "x"}}) is None


def test_every_json_line_starts_with_its_type() -> None:
    for event in a_run():
        assert event_to_json(event).startswith(f'{{"type":"{event.type}"'), event


def test_a_tool_calls_start_and_end_serialize_to_their_wire_form() -> None:
    reply = AssistantMessage(api="anthropic-messages", provider="p", model="m", timestamp=7)
    call = ToolCall(id="c\u20281", name="write", arguments={"path": "n\u00e9.txt"})
    reply.content.append(call)
    for event in (
        MessageUpdate(reply, ToolCallStartEvent(0, reply)),
        MessageUpdate(reply, ToolCallEndEvent(0, call, reply)),
    ):
        assert json.loads(event_to_json(event)) == event_to_wire(event)
