"""The loop as a function, against the scripted server: tools, parallel groups, retries, steering, abort."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from prime_jupyter.agent.loop import LoopConfig, run_loop
from prime_jupyter.agent.retry import RetryPolicy
from prime_jupyter.agent.tool import AgentTool, AgentToolResult, AnyTool, ToolUpdate, text_result
from prime_jupyter.ai.abort import AbortController, AbortSignal
from prime_jupyter.ai.stream import StreamOptions
from prime_jupyter.ai.types import AssistantMessage, Message, ToolResultMessage, UserMessage
from prime_jupyter.protocol.events import SessionEvent
from prime_jupyter.testing import CutStream, HttpError, ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.models import scripted_model


class Args(BaseModel):
    value: str


def echo_tool(name: str = "echo", mode: str = "sequential", log: list[str] | None = None) -> AnyTool:
    async def execute(call_id: str, params: Args, signal: AbortSignal, on_update: ToolUpdate) -> AgentToolResult:
        if log is not None:
            log.append(f"start {params.value}")
        on_update(text_result(f"working on {params.value}"))
        await asyncio.sleep(0)  # a tool that awaits: parallel ones interleave here
        if log is not None:
            log.append(f"end {params.value}")
        if params.value == "boom":
            raise RuntimeError("the tool exploded")
        return text_result(f"echo: {params.value}")

    return AgentTool(name, name, "echo a value", Args, execute, mode)  # type: ignore[arg-type]


def config(llm: ScriptedLLMServer, tools: list[AnyTool], **kw: object) -> LoopConfig:
    return LoopConfig(
        model=scripted_model(llm, "anthropic-messages"),
        system_prompt="sys",
        tools=tools,
        options=lambda: StreamOptions(api_key="test"),
        **kw,  # type: ignore[arg-type]
    )


async def run(
    llm: ScriptedLLMServer, cfg: LoopConfig, prompt: str = "go", signal: AbortSignal | None = None
) -> tuple[list[Message], list[SessionEvent]]:
    events: list[SessionEvent] = []
    added = await run_loop([UserMessage(content=prompt)], [], cfg, events.append, signal or AbortController().signal)
    return added, events


def call(value: str, name: str = "echo") -> ToolCall:
    return ToolCall(name=name, arguments={"value": value}, chunks=2)


@pytest.mark.asyncio
async def test_tool_results_go_back_to_the_model_until_it_stops(llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[call("a")]), ScriptedTurn(blocks=[Text(text="done: a")]))
    added, events = await run(llm, config(llm, [echo_tool()]))
    assert [m.role for m in added] == ["user", "assistant", "toolResult", "assistant"]
    result = added[2]
    assert isinstance(result, ToolResultMessage) and result.text() == "echo: a" and not result.is_error
    assert "echo: a" in str(llm.requests[1].body)
    types = [e.type for e in events]
    assert types[0] == "agent_start" and types[-1] == "agent_end"
    assert types.count("turn_start") == types.count("turn_end") == 2
    assert (
        types.index("tool_execution_start") < types.index("tool_execution_update") < types.index("tool_execution_end")
    )


@pytest.mark.asyncio
async def test_parallel_tools_overlap_and_sequential_ones_do_not(llm: ScriptedLLMServer) -> None:
    log: list[str] = []
    tools = [echo_tool("par", "parallel", log), echo_tool("seq", "sequential", log)]
    turn = ScriptedTurn(blocks=[call("p1", "par"), call("p2", "par"), call("s1", "seq"), call("s2", "seq")])
    llm.enqueue(turn, ScriptedTurn(blocks=[Text(text="ok")]))
    added, _ = await run(llm, config(llm, tools))
    assert log[:4] == ["start p1", "start p2", "end p1", "end p2"]
    assert log[4:] == ["start s1", "end s1", "start s2", "end s2"]
    results = [m for m in added if isinstance(m, ToolResultMessage)]
    assert [r.text() for r in results] == ["echo: p1", "echo: p2", "echo: s1", "echo: s2"]


@pytest.mark.asyncio
async def test_tool_failures_and_bad_arguments_become_error_results(llm: ScriptedLLMServer) -> None:
    turn = ScriptedTurn(
        blocks=[call("boom"), ToolCall(name="echo", arguments={"wrong": 1}), ToolCall(name="nope", arguments={})]
    )
    llm.enqueue(turn, ScriptedTurn(blocks=[Text(text="ok")]))
    added, _ = await run(llm, config(llm, [echo_tool()]))
    results = [m for m in added if isinstance(m, ToolResultMessage)]
    assert all(r.is_error for r in results)
    assert "the tool exploded" in results[0].text()
    assert "value" in results[1].text() and "Invalid arguments" in results[1].text()
    assert "does not exist" in results[2].text()


@pytest.mark.asyncio
async def test_transient_failures_retry_with_doubling_delays(llm: ScriptedLLMServer) -> None:
    fail = [ScriptedTurn(blocks=[Text(text="x")], fault=HttpError(status=s)) for s in (500, 529)]
    cut = ScriptedTurn(blocks=[Text(text="partial text", chunks=4)], fault=CutStream(after_events=5))
    llm.enqueue(*fail, cut, ScriptedTurn(blocks=[Text(text="finally")]))
    cfg = config(llm, [], retry=RetryPolicy(base_delay_s=0.05))
    added, events = await run(llm, cfg)
    retries = [e for e in events if e.type == "auto_retry_start"]
    assert [r.delay_ms for r in retries] == [50, 100, 200]  # type: ignore[union-attr]
    assert [r.attempt for r in retries] == [1, 2, 3]  # type: ignore[union-attr]
    end = [e for e in events if e.type == "auto_retry_end"]
    assert len(end) == 1 and end[0].success  # type: ignore[union-attr]
    final = added[-1]
    assert isinstance(final, AssistantMessage) and final.text() == "finally"
    # the cut attempt had started streaming: it is shown and ended, but never sent back to the model
    failed = [e for e in events if e.type == "message_end" and getattr(e.message, "stop_reason", "") == "error"]
    assert len(failed) == 1
    assert "partial text" not in str(llm.requests[-1].body)


@pytest.mark.asyncio
async def test_retry_after_header_sets_the_wait(llm: ScriptedLLMServer) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="x")], fault=HttpError(status=429, retry_after=0.3)),
        ScriptedTurn(blocks=[Text(text="ok")]),
    )
    _, events = await run(llm, config(llm, [], retry=RetryPolicy(base_delay_s=5)))
    retries = [e for e in events if e.type == "auto_retry_start"]
    assert [r.delay_ms for r in retries] == [300]  # type: ignore[union-attr]
    assert len(llm.requests) == 2


@pytest.mark.asyncio
async def test_default_policy_waits_2_4_8_seconds() -> None:
    policy = RetryPolicy()
    assert [policy.delay(n, None) for n in (1, 2, 3)] == [2.0, 4.0, 8.0]
    assert policy.max_retries == 3


@pytest.mark.asyncio
async def test_retries_exhausted_end_the_run_with_the_error(llm: ScriptedLLMServer) -> None:
    llm.enqueue(*[ScriptedTurn(blocks=[Text(text="x")], fault=HttpError(status=503)) for _ in range(4)])
    added, events = await run(llm, config(llm, [], retry=RetryPolicy(base_delay_s=0.01)))
    final = added[-1]
    assert isinstance(final, AssistantMessage) and final.stop_reason == "error"
    end = [e for e in events if e.type == "auto_retry_end"]
    assert len(end) == 1 and not end[0].success and end[0].final_error  # type: ignore[union-attr]
    assert len(llm.requests) == 4


@pytest.mark.asyncio
async def test_abort_during_a_retry_wait_ends_the_run_without_retrying(llm: ScriptedLLMServer) -> None:
    """The abort comes as the wait starts; a wait that ignored it would retry after 60 s, with a second
    request, and end otherwise than aborted."""
    llm.enqueue(ScriptedTurn(blocks=[Text(text="x")], fault=HttpError(status=500)))
    controller = AbortController()
    events: list[SessionEvent] = []

    def emit(event: SessionEvent) -> None:
        events.append(event)
        if event.type == "auto_retry_start":
            controller.abort()

    cfg = config(llm, [], retry=RetryPolicy(base_delay_s=60))
    added = await run_loop([UserMessage(content="go")], [], cfg, emit, controller.signal)
    final = added[-1]
    assert isinstance(final, AssistantMessage) and final.stop_reason == "aborted"
    assert len(llm.requests) == 1 and [e.type for e in events].count("auto_retry_start") == 1


@pytest.mark.asyncio
async def test_steering_arrives_after_tools_and_follow_up_when_idle(llm: ScriptedLLMServer) -> None:
    steering: list[Message] = [UserMessage(content="STEER")]
    follow: list[Message] = [UserMessage(content="FOLLOW")]

    def take(queue: list[Message]) -> list[Message]:
        taken = queue[:]
        queue.clear()
        return taken

    llm.enqueue(
        ScriptedTurn(blocks=[call("a")]),
        ScriptedTurn(blocks=[Text(text="after steer")]),
        ScriptedTurn(blocks=[Text(text="after follow")]),
    )
    cfg = config(llm, [echo_tool()], take_steering=lambda: take(steering), take_follow_up=lambda: take(follow))
    added, _ = await run(llm, cfg)
    roles = [(m.role, m.text()) for m in added]  # type: ignore[union-attr]
    assert roles == [
        ("user", "go"),
        ("assistant", ""),
        ("toolResult", "echo: a"),
        ("user", "STEER"),
        ("assistant", "after steer"),
        ("user", "FOLLOW"),
        ("assistant", "after follow"),
    ]
    second = str(llm.requests[1].body)
    assert second.index("echo: a") < second.index("STEER")
