"""Cold hydration is lossless: order, tool inputs and outputs, details, ids; plus the live overlay."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from prime_jupyter.ai.types import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from prime_jupyter.protocol.hydration import NO_RESULT, LiveRun, LiveTool, apply_live, hydrate, total_usage
from prime_jupyter.protocol.parts import ChatMessage, ErrorPart, ReasoningPart, TextPart, ToolPart

ARGS: dict[str, JsonValue] = {"code": "1+1"}
DETAILS: JsonValue = {"outputs": [{"output_type": "execute_result", "data": {"text/plain": "2"}}]}


def assistant(*content: TextContent | ThinkingContent | ToolCall, **fields: object) -> AssistantMessage:
    return AssistantMessage(api="openai-responses", provider="p", model="m", content=list(content), **fields)  # type: ignore[arg-type]


def call(call_id: str = "c1") -> ToolCall:
    return ToolCall(id=call_id, name="ipython", arguments=ARGS)


def result(call_id: str = "c1", is_error: bool = False) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call_id, tool_name="ipython", content=[TextContent(text="2")], details=DETAILS, is_error=is_error
    )


def tool_of(message: ChatMessage, index: int) -> ToolPart:
    part = message.parts[index]
    assert isinstance(part, ToolPart)
    return part


def test_ids_are_entry_ids_and_tool_results_join_their_calls() -> None:
    messages = hydrate([UserMessage(content="hi"), assistant(call()), result()], ["u", "a", "r"])
    assert [m.id for m in messages] == ["u", "a"]
    tool = tool_of(messages[1], 0)
    assert (tool.state, tool.input, tool.output and tool.output.details) == ("output-available", ARGS, DETAILS)


def test_assistant_parts_keep_block_order_with_thinking_as_reasoning() -> None:
    message = assistant(ThinkingContent(thinking="t"), TextContent(text="a"), call(), TextContent(text="b"))
    (chat,) = hydrate([message, result()], ["a", "r"])
    assert [p.type for p in chat.parts] == ["reasoning", "text", "tool-IPython", "text"]
    assert chat.parts[0] == ReasoningPart(text="t")


def test_redacted_thinking_has_no_text() -> None:
    (chat,) = hydrate([assistant(ThinkingContent(thinking="opaque", redacted=True))], ["a"])
    assert chat.parts == [ReasoningPart(text="", redacted=True)]


def test_a_failed_tool_keeps_its_error_text() -> None:
    (chat,) = hydrate([assistant(call()), result(is_error=True)], ["a", "r"])
    assert (tool_of(chat, 0).state, tool_of(chat, 0).error_text) == ("output-error", "2")


def test_a_failed_model_call_ends_with_an_error_part_and_its_calls_never_ran() -> None:
    (chat,) = hydrate([assistant(call(), stop_reason="error", error_message="529 overloaded")], ["a"])
    assert chat.stop_reason == "error" and chat.parts[-1] == ErrorPart(message="529 overloaded")
    assert tool_of(chat, 0).state == "output-error"


def test_a_call_without_result_is_marked_interrupted() -> None:
    (chat,) = hydrate([assistant(call())], ["a"])
    assert (tool_of(chat, 0).state, tool_of(chat, 0).error_text) == ("output-error", NO_RESULT)


def test_a_result_without_its_call_is_kept_as_its_own_message() -> None:
    (chat,) = hydrate([result("lost")], ["r"])
    assert chat.id == "r" and tool_of(chat, 0).output is not None


def test_every_message_needs_an_entry_id() -> None:
    with pytest.raises(ValueError):
        hydrate([UserMessage(content="a"), UserMessage(content="b")], ["only-one"])


def test_user_text_content_becomes_a_text_part() -> None:
    (chat,) = hydrate([UserMessage(content="hello", timestamp=5)], ["u"])
    assert (chat.role, chat.parts, chat.created_at) == ("user", [TextPart(text="hello")], 5)


def test_apply_live_swaps_running_tools_in_and_appends_the_streaming_message() -> None:
    messages = hydrate([assistant(call())], ["a"])
    running = tool_of(messages[0], 0).model_copy(update={"state": "input-available", "error_text": None})
    streaming = ChatMessage(id="run-1-m2", role="assistant", parts=[TextPart(text="par")])
    live = LiveRun(run_id="run-1", message=streaming, tools=[LiveTool(message_id="a", index=0, part=running)])
    merged = apply_live(messages, live)
    assert tool_of(merged[0], 0).state == "input-available" and merged[-1] == streaming
    assert tool_of(messages[0], 0).state == "output-error"  # the input list is left alone


def test_apply_live_without_a_run_changes_nothing() -> None:
    messages = hydrate([UserMessage(content="a")], ["u"])
    assert apply_live(messages, None) == messages


def test_total_usage_adds_up_the_assistant_messages() -> None:
    used = [assistant(usage=Usage(input=10, output=1)), UserMessage(content="x"), assistant(usage=Usage(input=5))]
    total = total_usage(used)
    assert (total.input, total.output) == (15, 1)
