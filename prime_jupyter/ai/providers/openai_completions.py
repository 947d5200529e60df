"""The `openai-completions` API (Chat Completions, `POST /chat/completions`), as the `openai` SDK speaks it.

Also serves any OpenAI-compatible server by base URL (Ollama, vLLM, LM Studio, OpenRouter, Groq): their
`reasoning_content`/`reasoning` deltas become thinking. The SSE body is read raw (`prime_jupyter._sse`). The
messages of a `History` are encoded once (`_encoded`): only a turn's new messages are converted.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING

from pydantic import JsonValue

from prime_jupyter._sse import SseMessage, iter_sse
from prime_jupyter.ai.data import AssistantMessageData, ImageContentData, MessageData, UserContentData
from prime_jupyter.ai.errors import ProviderStatusError
from prime_jupyter.ai.history import History, messages_data
from prime_jupyter.ai.models import Model, openai_reasoning_effort
from prime_jupyter.ai.providers._body import Body
from prime_jupyter.ai.providers._client import drain
from prime_jupyter.ai.providers._encoded import NotEncodable, encode_part, encoded_messages, with_messages
from prime_jupyter.ai.providers._openai_common import data_url, post, result_images, result_text
from prime_jupyter.ai.providers._request import encode_body, encode_request
from prime_jupyter.ai.providers._transform import normalize_messages
from prime_jupyter.ai.types import Context, Message

if TYPE_CHECKING:
    from prime_jupyter.ai.stream import Emitter, StreamOptions

__all__ = ["build_request", "consume", "encode_messages_once", "stream_provider"]

Json = dict[str, JsonValue]
_STOP = {"stop": "stop", "length": "length", "tool_calls": "toolUse", "function_call": "toolUse"}


_WITHOUT_USAGE_CHUNK: set[tuple[str | None, str]] = set()
"""(base URL, model) of servers that refused `stream_options`: asked without it from then on."""


async def stream_provider(model: Model, context: Context, options: StreamOptions, emit: Emitter) -> None:
    server = (options.base_url or model.base_url, model.id)
    build = _encode_without_usage_chunk if server in _WITHOUT_USAGE_CHUNK else encode_messages_once
    try:
        await _stream(build, model, context, options, emit)
    except Exception as exc:
        if build is _encode_without_usage_chunk or emit.started or not _refuses_stream_options(exc):
            raise
        _WITHOUT_USAGE_CHUNK.add(server)  # some OpenAI-compatible servers know no `stream_options`
        await _stream(_encode_without_usage_chunk, model, context, options, emit)


def _refuses_stream_options(exc: Exception) -> bool:
    return isinstance(exc, ProviderStatusError) and exc.status_code in (400, 422) and "stream_options" in exc.message


def _encode_without_usage_chunk(model: Model, context: Context, options: StreamOptions) -> Body:
    """The request without `stream_options`: the answer then streams without its usage."""
    return encode_messages_once(model, context, options, usage=False)


async def _stream(
    build: Callable[[Model, Context, StreamOptions], Body],
    model: Model,
    context: Context,
    options: StreamOptions,
    emit: Emitter,
) -> None:
    async with post(options, "/chat/completions", encode_request(build, model, context, options)) as resp:
        emit.start()
        raw = resp.aiter_bytes()
        with emit.done_after():  # the body read to its end before the caller hears `done`
            await consume(iter_sse(raw), emit)
            await drain(raw)


def build_request(model: Model, context: Context, options: StreamOptions, usage: bool = True) -> Json:
    """The request body, built from scratch (without `stream_options` unless `usage`)."""
    messages: list[JsonValue] = [_system(context.system_prompt)] if context.system_prompt else []
    messages.extend(_messages(context.messages, model.accepts_images))
    return _body(model, context, options, messages, usage)


def encode_messages_once(model: Model, context: Context, options: StreamOptions, usage: bool = True) -> Body:
    """`build_request`'s body, encoded (in pieces), with the messages of a `History` encoded once
    (`_encoded`)."""
    if isinstance(context.messages, History):
        wire = _Wire()
        messages = encoded_messages(context.messages, _MEMO, wire.convert, wire.settle, images=model.accepts_images)
        if messages is not None:
            try:
                system = [encode_part(_system(context.system_prompt))] if context.system_prompt else []
            except NotEncodable:
                return encode_body(build_request(model, context, options, usage))
            body = encode_body(_body(model, context, options, [], usage))
            return with_messages(body, [*system, *messages])
    return encode_body(build_request(model, context, options, usage))


_MEMO = "openai-completions"


def _system(prompt: str) -> Json:
    return {"role": "system", "content": prompt}


def _body(model: Model, context: Context, options: StreamOptions, messages: list[JsonValue], usage: bool) -> Json:
    body: Json = {"model": model.id, "messages": messages, "stream": True}
    if usage:
        body["stream_options"] = {"include_usage": True}
    max_tokens = options.max_tokens or min(model.max_tokens, 32_000)
    body["max_completion_tokens" if model.provider == "openai" else "max_tokens"] = max_tokens
    effort = openai_reasoning_effort(options.thinking) if model.reasoning else None
    if effort:
        body["reasoning_effort"] = effort
    elif options.temperature is not None:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in context.tools
        ]
    return body


def _messages(messages: Sequence[Message], images: bool) -> list[JsonValue]:
    out: list[JsonValue] = []
    wire = _Wire()
    convert = wire.convert
    for message in normalize_messages(messages_data(messages), images):
        out += convert(message)
    out += wire.settle()
    return out


class _Wire:
    """The wire messages of the cleaned messages, fed one at a time: the images of a run of tool
    results wait for a user message after the run."""

    __slots__ = ("images",)

    def __init__(self) -> None:
        self.images: list[ImageContentData] = []  # images of tool results, sent in a user message after them

    def convert(self, message: MessageData) -> list[Json]:
        if message["role"] == "toolResult":
            self.images += result_images(message)
            return [{"role": "tool", "tool_call_id": message["toolCallId"], "content": result_text(message)}]
        if message["role"] == "assistant":
            wire = _assistant(message)
        else:
            wire = {"role": "user", "content": _user_content(message["content"])}
        return [*self.settle(), wire] if self.images else [wire]

    def settle(self) -> list[Json]:
        """The images' message, if images wait: after it nothing does."""
        if not self.images:
            return []
        images, self.images = self.images, []
        return [_image_message(images)]


def _image_message(images: list[ImageContentData]) -> Json:
    parts: list[JsonValue] = [{"type": "text", "text": "Images returned by the tool calls above:"}]
    parts.extend({"type": "image_url", "image_url": {"url": data_url(i)}} for i in images)
    return {"role": "user", "content": parts}


def _user_content(content: str | list[UserContentData]) -> JsonValue:
    if isinstance(content, str):
        return content
    return [
        {"type": "text", "text": b["text"]}
        if b["type"] == "text"
        else {"type": "image_url", "image_url": {"url": data_url(b)}}
        for b in content
    ]


def _assistant(message: AssistantMessageData) -> Json:
    content = message.get("content", ())
    text = "".join(b["text"] for b in content if b["type"] == "text")
    out: Json = {"role": "assistant", "content": text or None}
    calls: list[JsonValue] = []
    for c in content:
        if c["type"] == "toolCall":
            arguments: dict[str, JsonValue] = c.get("arguments", {})  # typed, so that mypy checks the key
            calls.append(
                {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": json.dumps(arguments)}}
            )
    if calls:
        out["tool_calls"] = calls
    return out


class _Blocks:
    """Which block is open: deltas of one kind continue it, another kind closes it first."""

    def __init__(self, emit: Emitter) -> None:
        self.emit = emit
        self.kind = ""
        self.index = -1
        self.tools: dict[int, int] = {}

    def text(self, delta: str) -> None:
        if self.kind != "text":
            self.close()
            self.kind, self.index = "text", self.emit.text_start()
        self.emit.text_delta(self.index, delta)

    def thinking(self, delta: str) -> None:
        if self.kind != "thinking":
            self.close()
            self.kind, self.index = "thinking", self.emit.thinking_start()
        self.emit.thinking_delta(self.index, delta)

    def tool(self, raw: dict[str, JsonValue]) -> None:
        position = raw.get("index", 0)
        assert isinstance(position, int)
        function = raw.get("function") or {}
        assert isinstance(function, dict)
        if position not in self.tools:
            self.close()
            call_id, name = raw.get("id") or f"call_{position}", function.get("name") or ""
            self.tools[position] = self.emit.toolcall_start(str(call_id), str(name))
        arguments = function.get("arguments")
        if arguments:
            self.emit.toolcall_delta(self.tools[position], str(arguments))

    def close(self) -> None:
        if self.kind == "text":
            self.emit.text_end(self.index)
        elif self.kind == "thinking":
            self.emit.thinking_end(self.index)
        self.kind = ""

    def finish(self) -> None:
        self.close()
        for index in self.tools.values():
            self.emit.toolcall_end(index)
        self.tools.clear()


async def consume(messages: AsyncIterator[SseMessage], emit: Emitter) -> None:
    """Fold an answer's chunks (one SSE message each, `[DONE]` last) into `emit`."""
    blocks = _Blocks(emit)
    loads = json.loads
    complete = False
    async for sse in messages:
        data = sse.data
        if data == "[DONE]":
            complete = True
            break
        chunk = loads(data)
        if chunk.get("error"):
            error = chunk["error"]
            message = error.get("message", "error") if isinstance(error, dict) else str(error)
            emit.fail("error", str(message), retryable=True)
            return
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") or {}
            content = delta.get("content")
            if content:
                blocks.text(content)
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if reasoning:
                blocks.thinking(reasoning)
            for call in delta.get("tool_calls") or ():
                blocks.tool(call)
            finish = choice.get("finish_reason")
            if finish:
                if finish == "content_filter":
                    emit.fail("error", "the provider's content filter stopped the response")
                    return
                emit.message.stop_reason = _STOP.get(finish, "stop")  # type: ignore[assignment]
        usage = chunk.get("usage")
        if usage:
            _read_usage(emit, usage)
        if chunk.get("id"):
            emit.message.response_id = chunk["id"]
    blocks.finish()
    if complete:
        emit.done()
    else:
        emit.fail("error", "the provider's stream ended before [DONE]", retryable=True)


def _read_usage(emit: Emitter, raw: dict[str, JsonValue]) -> None:
    details = raw.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else 0
    prompt, completion = raw.get("prompt_tokens") or 0, raw.get("completion_tokens") or 0
    assert isinstance(prompt, int) and isinstance(completion, int)
    cached_tokens = cached if isinstance(cached, int) else 0
    usage = emit.message.usage
    usage.input = prompt - cached_tokens
    usage.cache_read = cached_tokens
    usage.output = completion
