"""The `anthropic-messages` API on the official `anthropic` SDK.

The request goes through the SDK (auth, base URL, status errors); the SSE body is read raw through
`with_streaming_response` and parsed here, which is several times cheaper per delta than the SDK's
event objects (perf-anchor.md).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pydantic import JsonValue

from prime_jupyter.ai.models import Model, anthropic_effort, anthropic_thinking_budget
from prime_jupyter.ai.providers._sse import drain, iter_sse
from prime_jupyter.ai.providers._transform import normalize_messages, safe_tool_id
from prime_jupyter.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

if TYPE_CHECKING:
    import anthropic

    from prime_jupyter.ai.stream import Emitter, StreamOptions

__all__ = ["build_request", "stream_provider"]

_STOP = {"end_turn": "stop", "tool_use": "toolUse", "max_tokens": "length", "stop_sequence": "stop"}
_TRANSIENT = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}
_clients: dict[tuple[str, str | None, float], anthropic.AsyncAnthropic] = {}

Json = dict[str, JsonValue]


def _client(options: StreamOptions) -> anthropic.AsyncAnthropic:
    key = (options.api_key, options.base_url, options.timeout_s)
    client = _clients.get(key)
    if client is None:
        import anthropic

        client = anthropic.AsyncAnthropic(
            api_key=options.api_key, base_url=options.base_url, max_retries=0, timeout=options.timeout_s
        )
        _clients[key] = client
    return client


async def stream_provider(model: Model, context: Context, options: StreamOptions, emit: Emitter) -> None:
    client = _client(options)
    body = build_request(model, context, options)
    create = client.messages.with_streaming_response.create
    async with create(**body, extra_headers=options.headers) as resp:  # type: ignore[call-overload]
        emit.message.response_id = resp.headers.get("request-id")
        raw = resp.http_response.aiter_raw()
        await _consume(iter_sse(raw), emit)
        await drain(raw)


def build_request(model: Model, context: Context, options: StreamOptions) -> Json:
    max_tokens = options.max_tokens or min(model.max_tokens, 32_000)
    body: Json = {"model": model.id, "stream": True, "messages": _messages(context.messages)}
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


def _messages(messages: list[Message]) -> list[JsonValue]:
    out: list[JsonValue] = []
    for message in normalize_messages(messages):
        if isinstance(message, UserMessage):
            content = _user_content(message)
            if content:
                out.append({"role": "user", "content": content})
        elif isinstance(message, AssistantMessage):
            blocks = _assistant_content(message)
            if blocks:
                out.append({"role": "assistant", "content": blocks})
        else:
            block = _tool_result(message)
            previous = out[-1] if out else None
            previous_content = previous.get("content") if isinstance(previous, dict) else None
            if isinstance(previous, dict) and previous.get("_results") and isinstance(previous_content, list):
                previous_content.append(block)
            else:
                out.append({"role": "user", "content": [block], "_results": True})
    for entry in out:
        if isinstance(entry, dict):
            entry.pop("_results", None)
    _mark_cache_point(out)
    return out


def _mark_cache_point(out: list[JsonValue]) -> None:
    """Cache the prompt up to the newest user turn so each turn re-reads it cheaply."""
    for entry in reversed(out):
        if isinstance(entry, dict) and entry.get("role") == "user":
            content = entry["content"]
            if isinstance(content, list) and content and isinstance(content[-1], dict):
                content[-1]["cache_control"] = {"type": "ephemeral"}
            return


def _image(block: ImageContent) -> Json:
    return {"type": "image", "source": {"type": "base64", "media_type": block.mime_type, "data": block.data}}


def _user_content(message: UserMessage) -> list[JsonValue]:
    if isinstance(message.content, str):
        return [{"type": "text", "text": message.content}] if message.content else []
    return [
        _image(b) if isinstance(b, ImageContent) else {"type": "text", "text": b.text}
        for b in message.content
        if isinstance(b, ImageContent) or b.text
    ]


def _assistant_content(message: AssistantMessage) -> list[JsonValue]:
    same_provider = message.api == "anthropic-messages"
    blocks: list[JsonValue] = []
    for block in message.content:
        if isinstance(block, TextContent) and block.text:
            blocks.append({"type": "text", "text": block.text})
        elif isinstance(block, ThinkingContent):
            if same_provider and block.redacted and block.thinking_signature:
                blocks.append({"type": "redacted_thinking", "data": block.thinking_signature})
            elif same_provider and block.thinking_signature:
                blocks.append({"type": "thinking", "thinking": block.thinking, "signature": block.thinking_signature})
            elif block.thinking:
                blocks.append({"type": "text", "text": f"<thinking>\n{block.thinking}\n</thinking>"})
        elif isinstance(block, ToolCall):
            blocks.append(
                {"type": "tool_use", "id": safe_tool_id(block.id), "name": block.name, "input": block.arguments}
            )
    return blocks


def _tool_result(message: ToolResultMessage) -> Json:
    content: list[JsonValue] = [
        _image(b) if isinstance(b, ImageContent) else {"type": "text", "text": b.text or "(empty)"}
        for b in message.content
    ] or [{"type": "text", "text": "(no output)"}]
    return {
        "type": "tool_result",
        "tool_use_id": safe_tool_id(message.tool_call_id),
        "content": content,
        "is_error": message.is_error,
    }


async def _consume(events: object, emit: Emitter) -> None:
    from collections.abc import AsyncIterator

    assert isinstance(events, AsyncIterator)
    blocks: dict[int, int] = {}
    signatures: dict[int, str] = {}
    usage = emit.message.usage
    loads = json.loads
    async for name, data in events:
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
