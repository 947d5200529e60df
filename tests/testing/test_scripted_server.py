"""The scripted LLM server, driven through the real `anthropic` and `openai` SDKs.

Every test parses the server's bytes with the SDK the agent uses, so a wire-format mistake shows up
here as an SDK parse or type failure, not later as a confusing agent bug.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from prime_jupyter.testing import (
    ContextOverflow,
    CutStream,
    HttpError,
    Script,
    ScriptedLLMServer,
    ScriptedServerCore,
    ScriptedTurn,
    StreamError,
    Text,
    Thinking,
    ToolCall,
    Usage,
)

ROOT = Path(__file__).resolve().parents[2]
MSG: dict[str, Any] = {"model": "claude-test", "max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}]}
CHAT: dict[str, Any] = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}
TOOL = ToolCall(name="python", arguments={"code": "print('héllo')\nx = [1, 2]", "timeout": 30}, chunks=7)
# U+2028 is legal inside JSON strings and must survive SSE framing; the SDKs must not split on it.
TEXT = "Running it now\u2028— héllo 🎉."
USAGE = Usage(input=1200, output=77, cache_read=300, cache_write=40)
FULL_TURN = ScriptedTurn(
    blocks=[Thinking(text="I should run code", chunks=4), Text(text=TEXT, chunks=5), TOOL], usage=USAGE
)


@pytest.fixture
def srv() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


def _anthropic(srv: ScriptedLLMServer, **kw: Any) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(api_key="test", base_url=srv.base_url, **{"max_retries": 0, **kw})


def _openai(srv: ScriptedLLMServer, **kw: Any) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key="test", base_url=srv.base_url + "/v1", **{"max_retries": 0, **kw})


async def _anthropic_events(srv: ScriptedLLMServer) -> list[Any]:
    async with _anthropic(srv) as client:
        return [e async for e in await client.messages.create(**MSG, stream=True)]


async def _chat_chunks(srv: ScriptedLLMServer) -> list[Any]:
    async with _openai(srv) as client:
        stream = await client.chat.completions.create(**CHAT, stream=True, stream_options={"include_usage": True})
        return [c async for c in stream]


async def _responses_events(srv: ScriptedLLMServer) -> list[Any]:
    async with _openai(srv) as client:
        return [e async for e in await client.responses.create(model="gpt-test", input="hi", stream=True)]


@pytest.mark.asyncio
async def test_anthropic_stream_delivers_each_block_in_its_scripted_pieces(srv: ScriptedLLMServer) -> None:
    srv.enqueue(FULL_TURN)
    events = await _anthropic_events(srv)
    deltas = [e.delta for e in events if e.type == "content_block_delta"]
    thinking = [d.thinking for d in deltas if d.type == "thinking_delta"]
    text = [d.text for d in deltas if d.type == "text_delta"]
    partial = [d.partial_json for d in deltas if d.type == "input_json_delta"]
    assert len(thinking) == 4 and "".join(thinking) == "I should run code"
    assert len(text) == 5 and "".join(text) == TEXT
    assert len(partial) == 7 and json.loads("".join(partial)) == TOOL.arguments
    assert [d.signature for d in deltas if d.type == "signature_delta"] == ["scripted-thinking-signature"]
    blocks = [e.content_block for e in events if e.type == "content_block_start"]
    assert [(b.type, getattr(b, "name", None)) for b in blocks] == [
        ("thinking", None),
        ("text", None),
        ("tool_use", "python"),
    ]
    usage = events[0].message.usage
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (1200, 300, 40)
    final = next(e for e in events if e.type == "message_delta")
    assert (final.delta.stop_reason, final.usage.output_tokens) == ("tool_use", 77)
    assert events[-1].type == "message_stop"


@pytest.mark.asyncio
async def test_anthropic_stream_helper_accumulates_partial_json_into_tool_input(srv: ScriptedLLMServer) -> None:
    srv.enqueue(FULL_TURN)
    async with _anthropic(srv) as client, client.messages.stream(**MSG) as stream:
        message = await stream.get_final_message()
    assert [b.type for b in message.content] == ["thinking", "text", "tool_use"]
    assert message.content[2].input == TOOL.arguments
    assert message.stop_reason == "tool_use"


@pytest.mark.asyncio
async def test_chat_stream_delivers_reasoning_content_tool_call_pieces_and_usage(srv: ScriptedLLMServer) -> None:
    srv.enqueue(FULL_TURN)
    chunks = await _chat_chunks(srv)
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    reasoning = [d.reasoning_content for d in deltas if getattr(d, "reasoning_content", None)]
    text = [d.content for d in deltas if d.content]
    calls = [tc for d in deltas for tc in d.tool_calls or []]
    assert len(reasoning) == 4 and "".join(reasoning) == "I should run code"
    assert len(text) == 5 and "".join(text) == TEXT
    assert (calls[0].index, calls[0].function.name, calls[0].id) == (0, "python", "call_scripted_0001_02")
    pieces = [tc.function.arguments for tc in calls[1:]]
    assert len(pieces) == 7 and json.loads("".join(pieces)) == TOOL.arguments
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    usage = chunks[-1].usage
    assert (chunks[-1].choices, usage.prompt_tokens, usage.completion_tokens) == ([], 1540, 77)
    assert usage.prompt_tokens_details.cached_tokens == 300


@pytest.mark.asyncio
async def test_responses_stream_delivers_summary_text_and_argument_deltas(srv: ScriptedLLMServer) -> None:
    srv.enqueue(FULL_TURN)
    events = await _responses_events(srv)
    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    summary = [e.delta for e in events if e.type == "response.reasoning_summary_text.delta"]
    text = [e.delta for e in events if e.type == "response.output_text.delta"]
    args = [e.delta for e in events if e.type == "response.function_call_arguments.delta"]
    assert len(summary) == 4 and "".join(summary) == "I should run code"
    assert len(text) == 5 and "".join(text) == TEXT
    assert len(args) == 7 and json.loads("".join(args)) == TOOL.arguments
    response = events[-1].response
    assert [item.type for item in response.output] == ["reasoning", "message", "function_call"]
    assert response.output_text == TEXT and response.output[2].name == "python"
    usage = response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.input_tokens_details.cached_tokens) == (1540, 77, 300)


@pytest.mark.asyncio
async def test_length_stop_is_each_providers_own_truncation_signal(srv: ScriptedLLMServer) -> None:
    srv.enqueue(*[ScriptedTurn(blocks=[Text(text="cut sh", chunks=2)], stop="length")] * 3)
    anthropic_events = await _anthropic_events(srv)
    chat_chunks = await _chat_chunks(srv)
    responses_events = await _responses_events(srv)
    assert next(e for e in anthropic_events if e.type == "message_delta").delta.stop_reason == "max_tokens"
    assert [c.choices[0].finish_reason for c in chat_chunks if c.choices][-1] == "length"
    last = responses_events[-1]
    assert (last.type, last.response.status) == ("response.incomplete", "incomplete")
    assert last.response.incomplete_details.reason == "max_output_tokens"


@pytest.mark.asyncio
@pytest.mark.parametrize("api", ["anthropic", "openai_chat", "openai_responses"])
async def test_429_raises_rate_limit_error_with_retry_after_header(srv: ScriptedLLMServer, api: str) -> None:
    srv.enqueue(ScriptedTurn(fault=HttpError(status=429, retry_after=7)))
    reader = {"anthropic": _anthropic_events, "openai_chat": _chat_chunks, "openai_responses": _responses_events}
    with pytest.raises((anthropic.RateLimitError, openai.RateLimitError)) as caught:
        await reader[api](srv)
    error = caught.value
    assert isinstance(error, (anthropic.RateLimitError, openai.RateLimitError))
    assert error.response.headers["retry-after"] == "7"
    body: Any = error.body
    assert body["error"]["type"] == "rate_limit_error" if api == "anthropic" else body["code"] == "rate_limit_exceeded"


@pytest.mark.asyncio
async def test_529_and_context_overflow_have_the_providers_error_shapes(srv: ScriptedLLMServer) -> None:
    srv.enqueue(ScriptedTurn(fault=HttpError(status=529)), ScriptedTurn(fault=ContextOverflow()))
    srv.enqueue(ScriptedTurn(fault=ContextOverflow(tokens=150_000, limit=128_000)))
    with pytest.raises(anthropic.OverloadedError):
        await _anthropic_events(srv)
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long: 250000 tokens > 200000 maximum"):
        await _anthropic_events(srv)
    with pytest.raises(openai.BadRequestError, match="maximum context length is 128000") as caught:
        await _chat_chunks(srv)
    assert caught.value.code == "context_length_exceeded"


@pytest.mark.asyncio
async def test_cut_stream_makes_sdk_iteration_fail_before_the_end(srv: ScriptedLLMServer) -> None:
    srv.enqueue(*[ScriptedTurn(blocks=[Text(text="x" * 50, chunks=50)], fault=CutStream(after_events=5))] * 2)
    received: list[Any] = []
    async with _anthropic(srv) as client:
        # The anthropic SDK lets its transport's RemoteProtocolError escape; openai wraps it.
        with pytest.raises(Exception, match="incomplete chunked read"):
            async for event in await client.messages.create(**MSG, stream=True):
                received.append(event)
    assert 0 < len(received) < 5 and received[-1].type == "content_block_delta"
    with pytest.raises(openai.APIConnectionError):
        await _chat_chunks(srv)
    assert [r.outcome for r in srv.wait_finished(2)] == ["cut", "cut"]


@pytest.mark.asyncio
async def test_in_stream_error_events_surface_as_sdk_errors(srv: ScriptedLLMServer) -> None:
    srv.enqueue(*[ScriptedTurn(blocks=[Text(text="abc", chunks=3)], fault=StreamError(after_events=3))] * 3)
    with pytest.raises(anthropic.APIStatusError, match="overloaded_error"):
        await _anthropic_events(srv)
    with pytest.raises(openai.APIError, match="Overloaded"):
        await _chat_chunks(srv)
    events = await _responses_events(srv)
    assert events[-1].type == "response.failed" and events[-1].response.error.message == "Overloaded"


@pytest.mark.asyncio
async def test_requests_are_recorded_with_api_headers_body_and_both_clocks(srv: ScriptedLLMServer) -> None:
    srv.enqueue(ScriptedTurn(blocks=[Text(text="a")]), ScriptedTurn(blocks=[Text(text="b")]))
    await _anthropic_events(srv)
    await _chat_chunks(srv)
    first, second = srv.wait_finished(2)
    assert (first.number, first.api, first.path, first.stream) == (1, "anthropic", "/v1/messages", True)
    assert "anthropic-version" in first.headers and second.headers["authorization"] == "Bearer test"
    assert first.body == {**MSG, "stream": True}
    assert second.api == "openai_chat" and second.body["stream_options"] == {"include_usage": True}
    assert first.finished_at is not None and first.received_at.perf <= first.finished_at.perf
    assert first.received_at.wall <= first.finished_at.wall <= second.received_at.wall
    assert (second.status, second.outcome) == (200, "completed")


@pytest.mark.asyncio
async def test_empty_queue_answers_500_no_turn_left_and_tells_the_sdk_not_to_retry(srv: ScriptedLLMServer) -> None:
    async with _anthropic(srv, max_retries=3) as client:
        with pytest.raises(anthropic.InternalServerError, match="scripted server: no turn left for request 1"):
            await client.messages.create(**MSG, stream=True)
    with pytest.raises(openai.InternalServerError, match="scripted server: no turn left for request 2"):
        await _chat_chunks(srv)
    assert [r.outcome for r in srv.wait_finished(2)] == ["no_turn", "no_turn"]


@pytest.mark.asyncio
async def test_client_disconnect_mid_stream_is_recorded_and_the_server_keeps_serving(
    srv: ScriptedLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    srv.enqueue(ScriptedTurn(blocks=[Text(text="y" * 400, chunks=400)], chunk_delay_s=0.005))
    srv.enqueue(ScriptedTurn(blocks=[Text(text="still here", chunks=2)]))
    async with _openai(srv) as client:
        stream = await client.chat.completions.create(**CHAT, stream=True)
        async for _ in stream:
            break
        await stream.close()
    chunks = await _chat_chunks(srv)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "still here"
    assert [r.outcome for r in srv.wait_finished(2)] == ["client_disconnected", "completed"]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.asyncio
async def test_slow_first_byte_trips_the_sdk_read_timeout(srv: ScriptedLLMServer) -> None:
    srv.enqueue(ScriptedTurn(blocks=[Text(text="late")], first_byte_delay_s=30))
    async with _anthropic(srv, timeout=0.3) as client:
        with pytest.raises(anthropic.APITimeoutError):
            await client.messages.create(**MSG, stream=True)


@pytest.mark.asyncio
async def test_non_streaming_requests_get_complete_json_bodies(srv: ScriptedLLMServer) -> None:
    srv.enqueue(*[FULL_TURN] * 3)
    async with _anthropic(srv) as a_client, _openai(srv) as o_client:
        message = await a_client.messages.create(**MSG)
        completion = await o_client.chat.completions.create(**CHAT)
        response = await o_client.responses.create(model="gpt-test", input="hi")
    assert message.content[2].input == TOOL.arguments and message.usage.output_tokens == 77
    call = completion.choices[0].message.tool_calls[0]
    assert json.loads(call.function.arguments) == TOOL.arguments and completion.choices[0].message.content == TEXT
    assert response.output_text == TEXT and response.status == "completed"


def test_sync_sdk_client_reads_a_paced_stream(srv: ScriptedLLMServer) -> None:
    srv.enqueue(ScriptedTurn(blocks=[Text(text="slow and steady", chunks=5)], chunk_delay_s=0.002))
    client = anthropic.Anthropic(api_key="test", base_url=srv.base_url, max_retries=0)
    with client.messages.stream(**MSG) as stream:
        assert "".join(stream.text_stream) == "slow and steady"


def test_script_round_trips_through_json() -> None:
    faults = [HttpError(status=429, retry_after=1.5), ContextOverflow(), CutStream(after_events=2), StreamError()]
    script = Script(turns=[FULL_TURN, *[ScriptedTurn(blocks=[Text(text="t")], fault=f) for f in faults]])
    assert Script.model_validate_json(script.model_dump_json()) == script


def test_cli_serves_a_script_file_accepts_more_turns_records_jsonl_and_exits_on_stdin_eof(tmp_path: Path) -> None:
    script_file, record_file = tmp_path / "script.json", tmp_path / "requests.jsonl"
    script_file.write_text(
        Script(turns=[ScriptedTurn(blocks=[Text(text="from a subprocess", chunks=3)])]).model_dump_json()
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "prime_jupyter.testing.scripted_server", "--script", str(script_file)]
    proc = subprocess.Popen(
        [*command, "--record", str(record_file)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        ready = proc.stdout.readline().split()
        assert ready[0] == "READY" and ready[1].startswith("http://127.0.0.1:")
        more = Script(turns=[ScriptedTurn(blocks=[Text(text="enqueued later")])]).model_dump_json()
        assert httpx.post(ready[1] + "/_scripted/turns", content=more).json() == {"queued": 1, "pending": 2}
        client = openai.OpenAI(api_key="test", base_url=ready[1] + "/v1", max_retries=0)
        texts = [
            "".join(c.choices[0].delta.content or "" for c in client.chat.completions.create(**CHAT, stream=True))
            for _ in range(2)
        ]
        assert texts == ["from a subprocess", "enqueued later"]
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()
    records = [json.loads(line) for line in record_file.read_text().split("\n") if line]
    assert [(r["api"], r["outcome"]) for r in records] == [("openai_chat", "completed")] * 2
    assert records[0]["received_at"]["wall"] <= records[0]["finished_at"]["wall"] <= records[1]["received_at"]["wall"]


@pytest.mark.asyncio
@pytest.mark.parametrize("delay_s", [0.0, 0.001])
async def test_every_streamed_chunk_is_shown_to_the_write_hook_before_it_is_sent(delay_s: float) -> None:
    written: list[bytes] = []
    core = ScriptedServerCore(on_stream_write=written.append)
    base_url = await core.start()
    core.enqueue(ScriptedTurn(blocks=[Text(text="abcdef", chunks=3)], chunk_delay_s=delay_s))
    async with anthropic.AsyncAnthropic(api_key="test", base_url=base_url, max_retries=0) as client:
        events = [e async for e in await client.messages.create(**MSG, stream=True)]
    await core.close()
    seen = b"".join(written)
    deltas = [e.delta.text for e in events if e.type == "content_block_delta"]
    assert deltas == ["ab", "cd", "ef"]
    assert all(json.dumps(d).encode() in seen for d in deltas)
    if delay_s:  # paced: each SSE event is its own write (the SDK hides `ping`)
        assert len(written) >= len(events) and all(w.count(b"\n\n") == 1 for w in written)
    else:  # unpaced: the whole stream in one write
        assert len(written) == 1
