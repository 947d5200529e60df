"""Realistic session-event sequences, mapped to the golden NDJSON chat streams beside this file.

The goldens are the contract the panel's unit tests parse too. A mapping change shows up as a failing
`test_golden.py`; if the change is meant, regenerate them deliberately and review the diff:

    PYTHONPATH=.:tests .venv/bin/python -m kit.golden

The expected views of the streams (`golden_views.py`) and the mid-run hydrations (`golden_hydrations.py`)
follow from the streams: regenerate them after the streams, then run the Python and the panel's tests.
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
    CompactionEnd,
    CompactionStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ModelChanged,
    Notify,
    QuestionAsked,
    QuestionResolved,
    QueueUpdate,
    SessionEvent,
    SessionInfoChanged,
    StatusChanged,
    ThinkingLevelChanged,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolOutput,
    TurnEnd,
    TurnStart,
    WidgetChanged,
)
from prime_jupyter.protocol.frames import ChatFrame
from prime_jupyter.protocol.framing import encode_ndjson
from prime_jupyter.protocol.mapper import EventMapper
from prime_jupyter.protocol.questions import ConfirmAnswer, Question, QuestionOption

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
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


def tool_question(sink: Sink) -> None:
    """A bash call whose input streams in pieces asks for confirmation, fails, and the user steers meanwhile:
    questions (confirmed, dismissed), the queue, a running tool's partial output, an error output."""
    sink(AgentStart())
    sink(TurnStart())
    prompt(sink, "Clear the old plots.", "5e6f7a8b", T0)
    sink(SessionInfoChanged("Old plots"))
    call = ("toolu_02", "bash", {"command": "rm -r plots/old"})
    first = Reply(sink, T0 + 10).thinking("Removing files: ask first.").text("I will remove plots/old.")
    first_message = first.tool_call(*call, pieces=4).end("6f7a8b9c", "toolUse", usage(800, 45))
    sink(ToolExecutionStart(*call))
    confirm = Question(
        id="q-0001",
        kind="confirm",
        title="Run `rm -r plots/old`?",
        message="This deletes 3 files.",
        timeout_ms=60_000,
        expires_at=T0 + 60_100,
        tool_call_id="toolu_02",
    )
    sink(QuestionAsked(confirm))
    keep = Question(
        id="q-0002",
        kind="select",
        title="Keep any of them?",
        options=[QuestionOption(id="a", label="a.png"), QuestionOption(id="b", label="b.png", description="newest")],
        multiple=True,
        timeout_ms=30_000,
        expires_at=T0 + 30_200,
    )
    sink(QuestionAsked(keep))
    sink(QueueUpdate(["only the .png files"], ["then list what is left"]))
    sink(QuestionResolved("q-0001", ConfirmAnswer(confirmed=True)))
    sink(QuestionResolved("q-0002", None, "dismissed"))
    denied = "rm: cannot remove 'plots/old/locked.png': Permission denied\n"
    partial = ToolOutput(content=[TextContent(text=denied)])
    failed = ToolOutput(content=[TextContent(text=denied + "exit code 1")], details={"exitCode": 1}, is_error=True)
    result = run_tool(sink, call, [partial], failed, "7a8b9c0d", T0 + 900, is_error=True)
    sink(TurnEnd(first_message, [result]))
    sink(QueueUpdate([], ["then list what is left"]))
    prompt(sink, "only the .png files", "8b9c0d1e", T0 + 950)
    sink(TurnStart())
    second = Reply(sink, T0 + 1000).text("One file is locked; ", "the others are gone.")
    answer = second.end("9c0d1e2f", "stop", usage(1000, 12))
    sink(TurnEnd(answer, []))
    sink(Notify("1 file could not be removed", "warning"))
    sink(AgentEnd([first_message, result, answer]))


def compaction(sink: Sink) -> None:
    """The context overflows, is compacted and the call retried; the provider is then overloaded and the
    retries give up. Status, widget, model, thinking level and notifications change along the way."""
    sink(AgentStart())
    sink(TurnStart())
    prompt(sink, "Plot the sales by region.", "0d1e2f3a", T0)
    sink(StatusChanged("kernel", "python3 · busy"))
    sink(WidgetChanged("todo", ["- [ ] load sales.csv", "- [ ] plot by region"]))
    too_long = "prompt is too long: 210000 tokens > 200000 maximum"
    overflow = Reply(sink, T0 + 10).end("1e2f3a4b", "error", Usage(), too_long)
    sink(CompactionStart("overflow"))
    sink(CompactionEnd("overflow", "The user analyses sales.csv by region.", 210_000, will_retry=True))
    for n in range(1, 7):
        sink(Notify(f"compaction note {n}", "error" if n == 6 else "info"))
    sink(AutoRetryStart(1, 2, 1500, "overloaded_error: Overloaded"))
    busy = Reply(sink, T0 + 1600).text("Let me ").end("2f3a4b5c", "error", Usage(), "overloaded_error: Overloaded")
    sink(AutoRetryStart(2, 2, 3000, "overloaded_error: Overloaded"))
    last = Reply(sink, T0 + 4700).end("3a4b5c6d", "error", Usage(), "overloaded_error: Overloaded")
    sink(AutoRetryEnd(False, 2, "overloaded_error: Overloaded"))
    sink(ThinkingLevelChanged("high"))
    sink(ModelChanged("openai", "gpt-5"))
    sink(StatusChanged("kernel", None))
    sink(WidgetChanged("todo", ["- [x] load sales.csv", "- [ ] plot by region"]))
    sink(TurnEnd(last, []))
    sink(AgentEnd([overflow, busy, last]))


SCENARIOS: dict[str, Callable[[Sink], None]] = {
    "text_answer": text_answer,
    "ipython_tool": ipython_tool,
    "retry": retry,
    "error": error,
    "tool_question": tool_question,
    "compaction": compaction,
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
