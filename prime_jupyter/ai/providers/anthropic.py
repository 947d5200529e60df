"""The `anthropic-messages` API (`POST /v1/messages`), as the official `anthropic` SDK speaks it.

The body is encoded once (`_request`, `_encoded`) and posted by the providers' HTTP client (`_client`), with
the headers the SDK we pin sends (anthropic 2.15: the key as a bearer token, its `anthropic-version`);
the SSE body is parsed here, which is
several times cheaper per delta than the SDK's event objects (perf-anchor.md). The SDK itself is not
imported: its client alone costs more start-up than the whole of pi's launch.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from pydantic import JsonValue

from prime_jupyter._sse import SseMessage, iter_sse
from prime_jupyter.ai.data import (
    AssistantMessageData,
    ImageContentData,
    MessageData,
    TextContentData,
    ThinkingContentData,
    ToolResultMessageData,
    UserContentData,
)
from prime_jupyter.ai.history import History, messages_data
from prime_jupyter.ai.models import Model, anthropic_effort, anthropic_thinking_budget
from prime_jupyter.ai.providers._body import Body
from prime_jupyter.ai.providers._client import drain, post_stream
from prime_jupyter.ai.providers._encoded import EncodedPrefix, encoded_messages, with_messages
from prime_jupyter.ai.providers._request import encode_body, encode_request
from prime_jupyter.ai.providers._transform import normalize_messages, safe_tool_id
from prime_jupyter.ai.types import Context, Message, TextContent, ThinkingContent

if TYPE_CHECKING:
    from prime_jupyter.ai.stream import Emitter, StreamOptions

__all__ = ["build_request", "consume", "encode_messages_once", "stream_provider"]

_STOP = {"end_turn": "stop", "tool_use": "toolUse", "max_tokens": "length", "stop_sequence": "stop"}
_TRANSIENT = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}

Json = dict[str, JsonValue]


DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2026-10-21"
"""The `anthropic-version` of the SDK we pin (`anthropic._constants.ANTHROPIC_API_VERSION`, 2.15)."""


async def stream_provider(model: Model, context: Context, options: StreamOptions, emit: Emitter) -> None:
    content = encode_request(encode_messages_once, model, context, options)
    base_url = options.base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
    headers = {"authorization": f"Bearer {options.api_key}", "anthropic-version": API_VERSION, **options.headers}
    url = f"{base_url.rstrip('/')}/v1/messages"
    async with post_stream(url, headers, content, options.timeout_s, options.connect_timeout_s) as resp:
        emit.message.response_id = resp.headers.get("request-id")
        raw = resp.aiter_bytes()
        with emit.done_after():  # the body read to its end before the caller hears `done`
            await consume(iter_sse(raw), emit)
            await drain(raw)


def build_request(model: Model, context: Context, options: StreamOptions) -> Json:
    """The request body, built from scratch."""
    return _body(model, context, options, _messages(context.messages, model.accepts_images))


def encode_messages_once(model: Model, context: Context, options: StreamOptions) -> Body:
    """`build_request`'s body, encoded (in pieces), with the messages of a `History` encoded once
    (`_encoded`)."""
    if isinstance(context.messages, History):
        wire = _Wire()
        messages = encoded_messages(
            context.messages, _MEMO, wire.convert, wire.settle, _marked, images=model.accepts_images
        )
        if messages is not None:
            return with_messages(encode_body(_body(model, context, options, [])), messages)
    return encode_body(build_request(model, context, options))


def _body(model: Model, context: Context, options: StreamOptions, messages: list[JsonValue]) -> Json:
    max_tokens = options.max_tokens or min(model.max_tokens, 32_000)
    body: Json = {"model": model.id, "stream": True, "messages": messages}
    budget = anthropic_thinking_budget(options.thinking, max_tokens) if model.reasoning else None
    if model.adaptive:
        effort = anthropic_effort(options.thinking)
        body["thinking"] = {"type": "adaptive", "display": "summarized"}
        if effort:
            body["output_config"] = {"effort": effort}
    elif budget is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": budget[0]}
        max_tokens = min(max(max_tokens, budget[0] + 4096), model.max_tokens)
        if max_tokens <= budget[0]:
            body["thinking"] = {"type": "enabled", "budget_tokens": max(1024, max_tokens - 1024)}
    elif options.temperature is not None:
        body["temperature"] = options.temperature
    body["max_tokens"] = max_tokens
    if context.system_prompt:
        body["system"] = [{"type": "text", "text": context.system_prompt, "cache_control": {"type": "ephemeral"}}]
    if context.tools:
        tools: list[JsonValue] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in context.tools
        ]
        last = tools[-1]
        assert isinstance(last, dict)
        last["cache_control"] = {"type": "ephemeral"}
        body["tools"] = tools
    return body


def _messages(messages: Sequence[Message], images: bool) -> list[JsonValue]:
    out: list[JsonValue] = []
    wire = _Wire()
    for message in normalize_messages(messages_data(messages), images):
        out += wire.convert(message)
    out += wire.settle()
    _mark_cache_point(out)
    return out


_MEMO = "anthropic-messages"
_MARK = b',"cache_control":{"type":"ephemeral"}}]}'


class _Wire:
    """The wire messages of the cleaned messages, fed one at a time: adjacent tool results wait to go
    together, in one `user` message, after the last of them."""

    __slots__ = ("results",)

    def __init__(self) -> None:
        self.results: list[JsonValue] | None = None

    def convert(self, message: MessageData) -> list[Json]:
        if message["role"] == "toolResult":
            if self.results is None:
                self.results = []
            self.results.append(_tool_result(message))
            return []
        if message["role"] == "assistant":
            role, content = "assistant", _assistant_content(message)
        else:
            role, content = "user", _user_content(message["content"])
        if not content:  # nothing to send: the tool results before it still wait
            return []
        return [*self.settle(), {"role": role, "content": content}]

    def settle(self) -> list[Json]:
        """The waiting tool results' message, if any: after it nothing waits."""
        if self.results is None:
            return []
        results, self.results = self.results, None
        return [{"role": "user", "content": results}]


def _marked(prefix: EncodedPrefix, parts: list[bytes], users: list[bool]) -> list[bytes]:
    """The prefix's chunks and the new parts, with the cache point on the last block of the last user
    part, as `_mark_cache_point` puts it: a key added at the end of that block, an object."""
    for index in range(len(parts) - 1, -1, -1):
        if users[index]:
            return [*prefix.chunks, *parts[:index], _mark(parts[index]), *parts[index + 1 :]]
    chunks = list(prefix.chunks)
    if prefix.user >= 0:
        chunks[prefix.user] = _mark(chunks[prefix.user])
    return chunks + parts


def _mark(part: bytes) -> bytes:
    return part[:-3] + _MARK if part.endswith(b"}]}") else part


def _mark_cache_point(out: list[JsonValue]) -> None:
    """Cache the prompt up to the newest user turn so each turn re-reads it cheaply.

    The marked block is a copy: blocks may be the messages' own data, which is never changed.
    """
    for entry in reversed(out):
        if isinstance(entry, dict) and entry.get("role") == "user":
            content = entry["content"]
            if isinstance(content, list) and content and isinstance(content[-1], dict):
                content[-1] = {**content[-1], "cache_control": {"type": "ephemeral"}}
            return


def _image(block: ImageContentData) -> Json:
    return {"type": "image", "source": {"type": "base64", "media_type": block["mimeType"], "data": block["data"]}}


def _user_content(content: str | list[UserContentData]) -> list[JsonValue]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [_text(b) if b["type"] == "text" else _image(b) for b in content if b["type"] != "text" or b["text"]]


def _text(block: TextContentData) -> Json:
    """A text block as Anthropic has it: our own block when it has nothing more (the usual case)."""
    # At run time the block is a dict of JSON values; saying so with cast() would cost a call per block.
    return block if len(block) == 2 else {"type": "text", "text": block["text"]}  # type: ignore[return-value]


def _assistant_content(message: AssistantMessageData) -> list[JsonValue]:
    same_provider = message["api"] == "anthropic-messages"
    blocks: list[JsonValue] = []
    for block in message.get("content", ()):
        if block["type"] == "text":
            if block["text"]:
                blocks.append(_text(block))
        elif block["type"] == "toolCall":
            blocks.append(
                {
                    "type": "tool_use",
                    "id": safe_tool_id(block["id"]),
                    "name": block["name"],
                    "input": block.get("arguments", {}),
                }
            )
        elif block["type"] == "thinking":
            converted = _thinking(block, same_provider)
            if converted is not None:
                blocks.append(converted)
    return blocks


def _thinking(block: ThinkingContentData, same_provider: bool) -> Json | None:
    signature: str | None = block.get("thinkingSignature")
    redacted: bool = block.get("redacted", False)
    if same_provider and redacted and signature:
        return {"type": "redacted_thinking", "data": signature}
    if same_provider and signature:
        return {"type": "thinking", "thinking": block["thinking"], "signature": signature}
    return {"type": "text", "text": f"<thinking>\n{block['thinking']}\n</thinking>"} if block["thinking"] else None


def _tool_result(message: ToolResultMessageData) -> Json:
    content: list[JsonValue] = [
        (_text(b) if b["text"] else {"type": "text", "text": "(empty)"}) if b["type"] == "text" else _image(b)
        for b in message.get("content", ())
    ] or [{"type": "text", "text": "(no output)"}]
    return {
        "type": "tool_result",
        "tool_use_id": safe_tool_id(message["toolCallId"]),
        "content": content,
        "is_error": message.get("isError", False),
    }


async def consume(events: AsyncIterator[SseMessage], emit: Emitter) -> None:
    """Fold an answer's events (one SSE message each, named by their type) into `emit`."""
    blocks: dict[int, int] = {}
    signatures: dict[int, str] = {}
    usage = emit.message.usage
    loads = json.loads
    async for message in events:
        name, data = message.event, message.data
        if name == "content_block_delta":
            event = loads(data)
            delta = event["delta"]
            kind = delta["type"]
            index = blocks[event["index"]]
            if kind == "text_delta":
                emit.text_delta(index, delta["text"])
            elif kind == "thinking_delta":
                emit.thinking_delta(index, delta["thinking"])
            elif kind == "input_json_delta":
                emit.toolcall_delta(index, delta["partial_json"])
            elif kind == "signature_delta":
                signatures[index] = signatures.get(index, "") + delta["signature"]
        elif name == "content_block_start":
            event = loads(data)
            block = event["content_block"]
            kind = block["type"]
            if kind == "text":
                blocks[event["index"]] = emit.text_start()
            elif kind == "thinking":
                blocks[event["index"]] = emit.thinking_start()
            elif kind == "redacted_thinking":
                blocks[event["index"]] = index = emit.thinking_start()
                signatures[index] = block.get("data", "")
                emit.message.content[index].redacted = True  # type: ignore[union-attr]
            elif kind == "tool_use":
                blocks[event["index"]] = emit.toolcall_start(block["id"], block["name"])
        elif name == "content_block_stop":
            event = loads(data)
            index = blocks[event["index"]]
            block_obj = emit.message.content[index]
            if isinstance(block_obj, TextContent):
                emit.text_end(index)
            elif isinstance(block_obj, ThinkingContent):
                emit.thinking_end(index, signatures.get(index), block_obj.redacted)
            else:
                emit.toolcall_end(index)
        elif name == "message_start":
            message = loads(data)["message"]
            emit.message.response_id = message.get("id") or emit.message.response_id
            _read_usage(usage, message.get("usage") or {})
            emit.start()
        elif name == "message_delta":
            event = loads(data)
            stop = (event.get("delta") or {}).get("stop_reason")
            if stop:
                if stop == "refusal":
                    emit.fail("error", "the model refused to answer")
                    return
                emit.message.stop_reason = _STOP.get(stop, "stop")  # type: ignore[assignment]
            _read_usage(usage, event.get("usage") or {})
        elif name == "message_stop":
            emit.done()
            return
        elif name == "error":
            error = loads(data).get("error") or {}
            kind = str(error.get("type", "error"))
            emit.fail("error", f"{kind}: {error.get('message', '')}", retryable=kind in _TRANSIENT)
            return


def _read_usage(usage: object, raw: dict[str, int | None]) -> None:
    from prime_jupyter.ai.types import Usage

    assert isinstance(usage, Usage)
    if raw.get("input_tokens") is not None:
        usage.input = raw["input_tokens"] or 0
    if raw.get("output_tokens") is not None:
        usage.output = raw["output_tokens"] or 0
    if raw.get("cache_read_input_tokens") is not None:
        usage.cache_read = raw["cache_read_input_tokens"] or 0
    if raw.get("cache_creation_input_tokens") is not None:
        usage.cache_write = raw["cache_creation_input_tokens"] or 0
