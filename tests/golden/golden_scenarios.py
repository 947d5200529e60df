"""Realistic session-event sequences, mapped to the golden NDJSON chat streams beside this file.

The goldens are the contract the panel's unit tests parse too. A mapping change shows up as a failing
`test_golden.py`; if the change is meant, regenerate them deliberately and review the diff:

    PYTHONPATH=. .venv/bin/python tests/golden/golden_scenarios.py
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from itertools import count
from pathlib import Path

from pydantic import JsonValue

from prime_jupyter.ai.events import (
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from prime_jupyter.ai.types import (
    AssistantMessage,
    Cost,
    StopReason,
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
    MessageEnd,
    MessageStart,
    MessageUpdate,
    SessionEvent,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolOutput,
    TurnEnd,
    TurnStart,
)
from prime_jupyter.protocol.frames import ChatFrame
from prime_jupyter.protocol.framing import encode_ndjson
from prime_jupyter.protocol.mapper import EventMapper

GOLDEN_DIR = Path(__file__).parent
SESSION_ID = "0198c0de-0000-7000-8000-000000000001"
T0 = 1_760_000_000_000
Sink = Callable[[SessionEvent], None]


def usage(input_tokens: int, output_tokens: int, cache_read: int = 0) -> Usage:
    total = input_tokens + output_tokens + cache_read
    cost = Cost(input=input_tokens * 3e-6, output=output_tokens * 15e-6, cache_read=cache_read * 3e-7)
    cost.total = cost.input + cost.output + cost.cache_read
    return Usage(input=input_tokens, output=output_tokens, cache_read=cache_read, total_tokens=total, cost=cost)


class Reply:
    """Streams one assistant message the way a provider does: one partial message, mutated in place."""

    def __init__(self, sink: Sink, timestamp: int) -> None:
        self.sink = sink
        self.message = AssistantMessage(
            api="anthropic-messages", provider="anthropic", model="claude-sonnet-4-5", timestamp=timestamp
        )
        sink(MessageStart(self.message))

    def _emit(self, event: object) -> None:
        self.sink(MessageUpdate(self.message, event))  # type: ignore[arg-type]

    def text(self, *chunks: str) -> Reply:
        index, block = len(self.message.content), TextContent(text="")
        self.message.content.append(block)
        self._emit(TextStartEvent(index, self.message))
        for chunk in chunks:
            block.text += chunk
            self._emit(TextDeltaEvent(index, chunk, self.message))
        self._emit(TextEndEvent(index, block.text, self.message))
        return self

    def thinking(self, *chunks: str) -> Reply:
        index, block = len(self.message.content), ThinkingContent(thinking="")
        self.message.content.append(block)
        self._emit(ThinkingStartEvent(index, self.message))
        for chunk in chunks:
            block.thinking += chunk
            self._emit(ThinkingDeltaEvent(index, chunk, self.message))
        self._emit(ThinkingEndEvent(index, block.thinking, self.message))
        return self

    def tool_call(self, call_id: str, name: str, arguments: dict[str, JsonValue], pieces: int = 3) -> Reply:
        index, block = len(self.message.content), ToolCall(id=call_id, name=name)
        self.message.content.append(block)
        self._emit(ToolCallStartEvent(index, self.message))
        raw = json.dumps(arguments)
        size = -(-len(raw) // pieces)
        for start in range(0, len(raw), size):
            self._emit(ToolCallDeltaEvent(index, raw[start : start + size], self.message))
        block.arguments = arguments
        self._emit(ToolCallEndEvent(index, block, self.message))
        return self

    def end(self, entry_id: str | None, stop: StopReason, used: Usage, error: str | None = None) -> AssistantMessage:
        self.message.stop_reason, self.message.usage, self.message.error_message = stop, used, error
        self.sink(MessageEnd(self.message, entry_id))
        return self.message


def prompt(sink: Sink, text: str, entry_id: str, timestamp: int) -> UserMessage:
    message = UserMessage(content=text, timestamp=timestamp)
    sink(MessageStart(message))
    sink(MessageEnd(message, entry_id))
    return message


def run_tool(sink: Sink, call: tuple[str, str, dict[str, JsonValue]], updates: list[ToolOutput], result: ToolOutput,
             entry_id: str, timestamp: int, is_error: bool = False) -> ToolResultMessage:  # fmt: skip
    call_id, name, args = call
    sink(ToolExecutionStart(call_id, name, args))
    for partial in updates:
        sink(ToolExecutionUpdate(call_id, name, args, partial))
    sink(ToolExecutionEnd(call_id, name, result, is_error))
    message = ToolResultMessage(
        tool_call_id=call_id,
        tool_name=name,
        content=result.content,
        details=result.details,
        is_error=is_error,
        timestamp=timestamp,
    )
    sink(MessageStart(message))
    sink(MessageEnd(message, entry_id))
    return message


# --- scenarios ----------------------------------------------------------------------------------


def text_answer(sink: Sink) -> None:
    """A plain answer with thinking first; the text carries U+2028, which must survive NDJSON."""
    sink(AgentStart())
    sink(TurnStart())
    prompt(sink, "What is a Jupyter kernel?", "a1b2c3d4", T0)
    reply = Reply(sink, T0 + 10).thinking("The user asks ", "about kernels.")
    answer = reply.text("A kernel is the process ", "that runs your code\u2028", " and keeps its state.").end(
        "b2c3d4e5", "stop", usage(1200, 40, cache_read=800)
    )
    sink(TurnEnd(answer, []))
    sink(AgentEnd([answer]))


IPYTHON_CODE = "import math\nprint(math.pi)\nmath.pi * 2"
IPYTHON_DETAILS: JsonValue = {
    "executionCount": 3,
    "outputs": [
        {"output_type": "stream", "name": "stdout", "text": "3.141592653589793\n"},
        {
            "output_type": "execute_result",
            "execution_count": 3,
            "data": {"text/plain": "6.283185307179586"},
            "metadata": {},
        },
    ],
}


def ipython_tool(sink: Sink) -> None:
    """Text, an IPython call with streamed output and rich details, then more text in a second turn."""
    sink(AgentStart())
    sink(TurnStart())
    prompt(sink, "Compute two pi.", "c3d4e5f6", T0)
    call = ("toolu_01", "ipython", {"code": IPYTHON_CODE})
    first = Reply(sink, T0 + 10).text("Let me compute it.").tool_call(*call)
    first_message = first.end("d4e5f6a7", "toolUse", usage(1500, 60))
    stdout = TextContent(text="3.141592653589793\n")
    partial = ToolOutput(content=[stdout], details={"outputs": [{"output_type": "stream", "name": "stdout"}]})
    final = ToolOutput(
        content=[TextContent(text="3.141592653589793\nOut[3]: 6.283185307179586")], details=IPYTHON_DETAILS
    )
    result = run_tool(sink, call, [partial], final, "e5f6a7b8", T0 + 500)
    sink(TurnEnd(first_message, [result]))
    sink(TurnStart())
    second = Reply(sink, T0 + 600).text("Two pi is ", "6.283185307179586.").end("f6a7b8c9", "stop", usage(1700, 20))
    sink(TurnEnd(second, []))
    sink(AgentEnd([first_message, result, second]))


def retry(sink: Sink) -> None:
    """The provider is overloaded mid-answer; the failed attempt stays, a retry succeeds."""
    sink(AgentStart())
    sink(TurnStart())
    prompt(sink, "Summarise the notebook.", "0a1b2c3d", T0)
    failed = Reply(sink, T0 + 10).text("The notebook").end("1b2c3d4e", "error", Usage(), "overloaded_error: Overloaded")
    sink(AutoRetryStart(1, 3, 2000, failed.error_message or ""))
    answer = (
        Reply(sink, T0 + 2100).text("The notebook loads a CSV and plots it.").end("2c3d4e5f", "stop", usage(900, 15))
    )
    sink(AutoRetryEnd(True, 1))
    sink(TurnEnd(answer, []))
    sink(AgentEnd([failed, answer]))


def error(sink: Sink) -> None:
    """The model call fails for good (a bad key): the message ends in error, and so does the run."""
    sink(AgentStart())
    sink(TurnStart())
    prompt(sink, "Hello?", "3d4e5f6a", T0)
    failed = Reply(sink, T0 + 10).end("4e5f6a7b", "error", Usage(), "401 invalid x-api-key")
    sink(TurnEnd(failed, []))
    sink(AgentEnd([failed]))


SCENARIOS: dict[str, Callable[[Sink], None]] = {
    "text_answer": text_answer,
    "ipython_tool": ipython_tool,
    "retry": retry,
    "error": error,
}


def new_mapper() -> EventMapper:
    ids: Iterator[int] = count(1)
    return EventMapper(SESSION_ID, new_id=lambda: f"{next(ids):04d}", context_window=lambda p, m: 200_000)


def map_scenario(name: str) -> list[ChatFrame]:
    mapper, frames = new_mapper(), []
    SCENARIOS[name](lambda event: frames.extend(mapper.map(event)))
    return frames


def golden_path(name: str) -> Path:
    return GOLDEN_DIR / f"{name}.ndjson"


def main() -> None:
    for name in SCENARIOS:
        golden_path(name).write_bytes(b"".join(encode_ndjson(frame) for frame in map_scenario(name)))
        print(f"wrote {golden_path(name)}")


if __name__ == "__main__":
    main()
