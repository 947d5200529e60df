"""The `openai-responses` API (Responses, `POST /responses`), as the `openai` SDK speaks it, read as raw SSE.

The messages of a `History` are encoded once (`_encoded`): only a turn's new messages are converted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import JsonValue

from prime_jupyter._sse import iter_sse
from prime_jupyter.ai.data import AssistantMessageData, MessageData, UserContentData
from prime_jupyter.ai.history import History, messages_data
from prime_jupyter.ai.models import Model, openai_reasoning_effort
from prime_jupyter.ai.providers._body import Body
from prime_jupyter.ai.providers._client import drain
from prime_jupyter.ai.providers._encoded import encoded_messages, with_messages
from prime_jupyter.ai.providers._openai_common import data_url, post, result_images, result_text
from prime_jupyter.ai.providers._request import encode_body, encode_request
from prime_jupyter.ai.providers._transform import normalize_messages
from prime_jupyter.ai.types import Context, Message, TextContent, ToolCall

if TYPE_CHECKING:
    from prime_jupyter.ai.stream import Emitter, StreamOptions

__all__ = ["build_request", "encode_messages_once", "stream_provider"]

Json = dict[str, JsonValue]


async def stream_provider(model: Model, context: Context, options: StreamOptions, emit: Emitter) -> None:
    async with post(options, "/responses", encode_request(encode_messages_once, model, context, options)) as resp:
        raw = resp.aiter_bytes()
        with emit.done_after():  # the body read to its end before the caller hears `done`
            await _consume(raw, emit)
            await drain(raw)


def build_request(model: Model, context: Context, options: StreamOptions) -> Json:
    """The request body, built from scratch."""
    return _body(model, context, options, _input(context.messages, model.accepts_images))


def encode_messages_once(model: Model, context: Context, options: StreamOptions) -> Body:
    """`build_request`'s body, encoded (in pieces), with the messages of a `History` encoded once
    (`_encoded`)."""
    if isinstance(context.messages, History):
        items = encoded_messages(context.messages, _MEMO, _items, _nothing, images=model.accepts_images)
        if items is not None:
            return with_messages(encode_body(_body(model, context, options, [])), items, _EMPTY_INPUT)
    return encode_body(build_request(model, context, options))


_MEMO = "openai-responses"
_EMPTY_INPUT = b'"input":[]'


def _nothing() -> list[Json]:
    """What the conversion holds back between messages: nothing."""
    return []


def _body(model: Model, context: Context, options: StreamOptions, items: list[JsonValue]) -> Json:
    body: Json = {
        "model": model.id,
        "input": items,
        "stream": True,
        "store": False,
        "max_output_tokens": options.max_tokens or min(model.max_tokens, 32_000),
    }
    if context.system_prompt:
        body["instructions"] = context.system_prompt
    effort = openai_reasoning_effort(options.thinking) if model.reasoning else None
    if effort:
        body["reasoning"] = {"effort": effort, "summary": "auto"}
    elif options.temperature is not None:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = [
            {"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters}
            for t in context.tools
        ]
    if options.session_id:
        body["prompt_cache_key"] = options.session_id
    return body


def _input(messages: Sequence[Message], images: bool) -> list[JsonValue]:
    items: list[JsonValue] = []
    for message in normalize_messages(messages_data(messages), images):
        items += _items(message)
    return items


def _items(message: MessageData) -> list[Json]:
    """The input items of one cleaned message."""
    if message["role"] == "assistant":
        return _assistant_items(message)
    if message["role"] == "toolResult":
        items: list[Json] = [
            {"type": "function_call_output", "call_id": message["toolCallId"], "output": result_text(message)}
        ]
        images = result_images(message)
        if images:
            parts: list[JsonValue] = [{"type": "input_text", "text": "Images returned by the tool call above:"}]
            parts.extend({"type": "input_image", "image_url": data_url(i)} for i in images)
            items.append({"role": "user", "content": parts})
        return items
    return [{"role": "user", "content": _user_parts(message["content"])}]


def _user_parts(content: str | list[UserContentData]) -> list[JsonValue]:
    if isinstance(content, str):
        return [{"type": "input_text", "text": content}]
    return [
        {"type": "input_text", "text": b["text"]}
        if b["type"] == "text"
        else {"type": "input_image", "image_url": data_url(b)}
        for b in content
    ]


def _assistant_items(message: AssistantMessageData) -> list[Json]:
    items: list[Json] = []
    for block in message.get("content", ()):
        if block["type"] == "text":
            if block["text"]:
                items.append({"role": "assistant", "content": [{"type": "output_text", "text": block["text"]}]})
        elif block["type"] == "toolCall":
            arguments: dict[str, JsonValue] = block.get("arguments", {})  # typed, so that mypy checks the key
            items.append(
                {
                    "type": "function_call",
                    "call_id": block["id"],
                    "name": block["name"],
                    "arguments": json.dumps(arguments),
                }
            )
    return items


async def _consume(chunks: object, emit: Emitter) -> None:
    from collections.abc import AsyncIterable

    assert isinstance(chunks, AsyncIterable)
    items: dict[int, int] = {}  # output_index -> content index
    loads = json.loads
    async for message in iter_sse(chunks):
        event = loads(message.data)
        kind = event.get("type", "") if message.event == "message" else message.event
        if kind == "response.output_text.delta":
            emit.text_delta(_block(emit, items, event, "text"), event["delta"])
        elif kind == "response.reasoning_summary_text.delta":
            emit.thinking_delta(_block(emit, items, event, "thinking"), event["delta"])
        elif kind == "response.function_call_arguments.delta":
            emit.toolcall_delta(items[event["output_index"]], event["delta"])
        elif kind == "response.output_item.added":
            item = event["item"]
            if item.get("type") == "function_call":
                items[event["output_index"]] = emit.toolcall_start(item["call_id"], item["name"])
            elif item.get("type") == "reasoning":
                items[event["output_index"]] = emit.thinking_start()
        elif kind == "response.output_item.done":
            _end(emit, items.pop(event["output_index"], None))
        elif kind in ("response.created", "response.in_progress"):
            emit.message.response_id = event.get("response", {}).get("id")
            emit.start()
        elif kind in ("response.completed", "response.incomplete"):
            _complete(emit, event.get("response") or {})
            return
        elif kind in ("response.failed", "error"):
            error = (event.get("response") or {}).get("error") or event.get("error") or event
            emit.fail("error", str(error.get("message", "the response failed")), retryable=True)
            return
    emit.fail("error", "the provider's stream ended before the response completed", retryable=True)


def _block(emit: Emitter, items: dict[int, int], event: dict[str, JsonValue], kind: str) -> int:
    position = event["output_index"]
    assert isinstance(position, int)
    if position not in items:
        items[position] = emit.text_start() if kind == "text" else emit.thinking_start()
    return items[position]


def _end(emit: Emitter, index: int | None) -> None:
    if index is None:
        return
    block = emit.message.content[index]
    if isinstance(block, TextContent):
        emit.text_end(index)
    elif isinstance(block, ToolCall):
        emit.toolcall_end(index)
    else:
        emit.thinking_end(index)


def _complete(emit: Emitter, response: dict[str, JsonValue]) -> None:
    usage = response.get("usage") or {}
    assert isinstance(usage, dict)
    details = usage.get("input_tokens_details") or {}
    cached = details.get("cached_tokens", 0) if isinstance(details, dict) else 0
    total_in, total_out = usage.get("input_tokens") or 0, usage.get("output_tokens") or 0
    assert isinstance(total_in, int) and isinstance(total_out, int) and isinstance(cached, int)
    emit.message.usage.input = total_in - cached
    emit.message.usage.cache_read = cached
    emit.message.usage.output = total_out
    if response.get("status") == "incomplete":
        emit.message.stop_reason = "length"
    emit.done()
