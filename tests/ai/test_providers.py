"""Each provider, over the providers' transport, against the scripted server: one vocabulary for all three APIs."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from prime_jupyter.ai.abort import AbortController
from prime_jupyter.ai.events import AssistantMessageEvent, ErrorEvent
from prime_jupyter.ai.models import Api, Model
from prime_jupyter.ai.providers._client import close_clients
from prime_jupyter.ai.stream import StreamOptions, stream
from prime_jupyter.ai.types import Context, ToolSpec, UserMessage
from prime_jupyter.testing import (
    ContextOverflow,
    CutStream,
    HttpError,
    JsonAnswer,
    RejectField,
    ScriptedLLMServer,
    ScriptedTurn,
    StreamError,
    Text,
    Thinking,
    ToolCall,
    Usage,
)
from prime_jupyter.testing.models import APIS, scripted_model

PATHS: dict[Api, str] = {
    "anthropic-messages": "v1/messages",
    "openai-completions": "chat/completions",
    "openai-responses": "responses",
}
CTX = Context(
    system_prompt="be brief",
    messages=[UserMessage(content="hi")],
    tools=[ToolSpec(name="bash", description="run", parameters={"type": "object", "properties": {}})],
)


async def collect(llm: ScriptedLLMServer, api: Api, signal_after: int | None = None) -> list[AssistantMessageEvent]:
    controller = AbortController()
    events: list[AssistantMessageEvent] = []
    options = StreamOptions(api_key="test", thinking="medium", signal=controller.signal)
    async for event in stream(scripted_model(llm, api), CTX, options):
        events.append(event)
        if signal_after is not None and len([e for e in events if e.type == "text_delta"]) == signal_after:
            controller.abort()
    return events


@pytest_asyncio.fixture(autouse=True)
async def kept_connections() -> AsyncIterator[None]:
    """The connections a test's turns kept alive are closed on its loop."""
    yield
    await close_clients()


def kinds(events: list[AssistantMessageEvent]) -> list[str]:
    return [e.type for e in events]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_text_and_thinking_stream_as_deltas(llm: ScriptedLLMServer, api: Api) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Thinking(text="let me think", chunks=3), Text(text="Hello\u2028world", chunks=4)]))
    events = await collect(llm, api)
    assert kinds(events)[0] == "start"
    assert kinds(events).count("thinking_delta") == 3
    assert kinds(events).count("text_delta") == 4
    final = events[-1]
    assert final.type == "done" and final.reason == "stop"
    assert final.message.text() == "Hello\u2028world"
    assert final.message.content[0].type == "thinking"


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_tool_call_json_in_fragments_is_parsed_while_it_arrives(llm: ScriptedLLMServer, api: Api) -> None:
    args = {"command": "ls -la /tmp", "timeout": 30, "nested": {"a": [1, 2, 3]}}
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments=args, id="call_1", chunks=9)], chunk_delay_s=0.005)
    )
    partial_args: list[dict[str, object]] = []
    events: list[AssistantMessageEvent] = []
    async for event in stream(scripted_model(llm, api), CTX, StreamOptions(api_key="test")):
        events.append(event)
        if event.type == "toolcall_delta":
            partial_args.append(dict(event.partial.content[event.content_index].arguments))  # type: ignore[union-attr]
    assert len(partial_args) == 9
    assert any(0 < len(a) < 3 for a in partial_args)  # some arguments were usable before the JSON completed
    final = events[-1]
    assert final.type == "done" and final.reason == "toolUse"
    call = final.message.tool_calls()[0]
    assert (call.name, call.arguments) == ("bash", args)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_parallel_tool_calls_in_one_message(llm: ScriptedLLMServer, api: Api) -> None:
    calls = [ToolCall(name="bash", arguments={"command": f"echo {i}"}, chunks=3) for i in range(3)]
    llm.enqueue(ScriptedTurn(blocks=[Text(text="running three"), *calls]))
    final = (await collect(llm, api))[-1]
    assert final.type == "done"
    assert [c.arguments["command"] for c in final.message.tool_calls()] == ["echo 0", "echo 1", "echo 2"]
    assert len({c.id for c in final.message.tool_calls()}) == 3


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_usage_and_cost_in_dollars(llm: ScriptedLLMServer, api: Api) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")], usage=Usage(input=1000, output=500, cache_read=2000)))
    final = (await collect(llm, api))[-1]
    assert final.type == "done"
    usage = final.message.usage
    assert (usage.input, usage.output, usage.cache_read) == (1000, 500, 2000)
    assert usage.cost.total == pytest.approx(1000 * 3e-6 + 500 * 15e-6 + 2000 * 0.3e-6)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_abort_mid_stream_keeps_partial_text(llm: ScriptedLLMServer, api: Api) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="word " * 50, chunks=50)], chunk_delay_s=0.01))
    events = await collect(llm, api, signal_after=5)
    final = events[-1]
    assert isinstance(final, ErrorEvent) and final.reason == "aborted"
    assert final.error.stop_reason == "aborted"
    assert final.error.text().startswith("word word word word word")
    assert len(final.error.text()) < len("word " * 50)


@pytest.mark.asyncio
async def test_an_abort_before_the_provider_starts_still_ends_the_stream(llm: ScriptedLLMServer) -> None:
    """Ctrl-C (or a closed stdout) right as a turn starts: the provider's task is cancelled before it
    ever ran, and the stream must still end, as aborted, instead of leaving the agent waiting."""
    controller = AbortController()
    options = StreamOptions(api_key="test", signal=controller.signal)
    events = stream(scripted_model(llm, "anthropic-messages"), CTX, options)
    controller.abort()

    async def drain() -> list[AssistantMessageEvent]:
        return [event async for event in events]

    final = (await asyncio.wait_for(drain(), 10))[-1]
    assert isinstance(final, ErrorEvent) and final.reason == "aborted"
    assert llm.requests == []


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    ("fault", "retryable", "retry_after"),
    [
        (HttpError(status=429, retry_after=7), True, 7.0),
        (HttpError(status=500), True, None),
        (HttpError(status=529), True, None),
        (CutStream(after_events=4), True, None),
        (StreamError(after_events=4), True, None),
        (HttpError(status=400, message="bad request"), False, None),
    ],
    ids=["429", "500", "529", "cut", "stream-error", "400"],
)
@pytest.mark.asyncio
async def test_faults_are_error_events_with_retry_facts(
    llm: ScriptedLLMServer, api: Api, fault: object, retryable: bool, retry_after: float | None
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="partial answer here", chunks=6)], fault=fault))  # type: ignore[arg-type]
    final = (await collect(llm, api))[-1]
    assert isinstance(final, ErrorEvent) and final.reason == "error"
    assert final.error.stop_reason == "error" and final.error.error_message
    assert (final.retryable, final.retry_after_s) == (retryable, retry_after)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_context_overflow_is_marked(llm: ScriptedLLMServer, api: Api) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="x")], fault=ContextOverflow()))
    final = (await collect(llm, api))[-1]
    assert isinstance(final, ErrorEvent)
    assert final.context_overflow and not final.retryable


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_abort_during_slow_first_byte_settles_quickly(llm: ScriptedLLMServer, api: Api) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="late")], first_byte_delay_s=30))
    controller = AbortController()
    options = StreamOptions(api_key="test", signal=controller.signal)
    asyncio.get_running_loop().call_later(0.2, controller.abort)
    result = await asyncio.wait_for(stream(scripted_model(llm, api), CTX, options).result(), timeout=5)
    assert result.stop_reason == "aborted"


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_request_carries_system_prompt_tools_and_history(llm: ScriptedLLMServer, api: Api) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    await collect(llm, api)
    body = llm.requests[-1].body
    assert isinstance(body, dict)
    dumped = str(body)
    assert "be brief" in dumped and "'bash'" in dumped and "hi" in dumped
    assert body["stream"] is True


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_on_event_gets_every_event_but_the_last_in_order(llm: ScriptedLLMServer, api: Api) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one two three", chunks=3)]))
    pushed: list[AssistantMessageEvent] = []

    def listen(event: AssistantMessageEvent) -> None:
        pushed.append(event)
        if event.type == "text_delta":
            raise RuntimeError("a listener's bug")  # logged; the stream goes on

    yielded = [e async for e in stream(scripted_model(llm, api), CTX, StreamOptions(api_key="test"), listen)]
    assert [e.type for e in yielded] == ["done"]
    assert kinds(pushed)[0] == "start" and kinds(pushed).count("text_delta") == 3
    assert "".join(e.delta for e in pushed if e.type == "text_delta") == "one two three"
    final = yielded[0]
    assert final.type == "done" and final.message.text() == "one two three"


async def first_error(model: Model) -> ErrorEvent:
    events = [e async for e in stream(model, CTX, StreamOptions(api_key="test"))]
    assert isinstance(events[-1], ErrorEvent)
    return events[-1]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_an_unreachable_provider_is_named_with_the_reason(llm: ScriptedLLMServer, api: Api) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    closed = scripted_model(llm, api).model_copy(update={"base_url": f"http://127.0.0.1:{port}/v1"})
    error = await first_error(closed)
    assert error.retryable
    assert error.error.error_message == f"cannot reach http://127.0.0.1:{port}/v1/{PATHS[api]}: Connection refused"
    with_secret = closed.model_copy(update={"base_url": f"http://user:secret@127.0.0.1:{port}/v1"})
    assert "secret" not in (await first_error(with_secret)).error.error_message


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_a_server_that_answers_with_json_is_told_apart_from_a_broken_stream(
    llm: ScriptedLLMServer, api: Api
) -> None:
    llm.enqueue(ScriptedTurn(fault=JsonAnswer()))
    error = await first_error(scripted_model(llm, api))
    assert not error.retryable  # the same request would get the same answer
    message = error.error.error_message or ""
    assert message.startswith(f"{llm.base_url}/") and "answered with JSON instead of streaming" in message
    assert message.endswith(": streaming is not supported")


@pytest.mark.asyncio
async def test_a_server_that_refuses_stream_options_is_asked_again_without_them(llm: ScriptedLLMServer) -> None:
    model = scripted_model(llm, "openai-completions")
    llm.enqueue(ScriptedTurn(blocks=[Text(text="first answer")], fault=RejectField(field="stream_options")))
    events = [e async for e in stream(model, CTX, StreamOptions(api_key="test"))]
    assert events[-1].type == "done" and events[-1].message.text() == "first answer"
    llm.enqueue(ScriptedTurn(blocks=[Text(text="second answer")]))
    again = [e async for e in stream(model, CTX, StreamOptions(api_key="test"))]
    assert again[-1].type == "done"
    sent = [request.body for request in llm.requests]
    assert [isinstance(b, dict) and "stream_options" in b for b in sent] == [True, False, False]
    assert llm.requests[0].status == 400  # refused once, then remembered for this server and model
