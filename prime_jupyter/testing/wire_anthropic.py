"""Anthropic Messages API wire format (`POST /v1/messages`), as the `anthropic` SDK parses it.

Stream: `message_start`, `ping`, per block `content_block_start` / `content_block_delta`
(`text_delta`, `thinking_delta` + `signature_delta`, `input_json_delta`) / `content_block_stop`,
then `message_delta` (stop reason, usage) and `message_stop`.
"""

from __future__ import annotations

from prime_jupyter.testing.script import (
    ContextOverflow,
    ScriptedTurn,
    StopKind,
    StreamError,
    Text,
    Thinking,
    ToolCall,
    block_pieces,
)
from prime_jupyter.testing.wire_common import ApiName, WireContext, classify_status, dumps, sse

__all__ = ["AnthropicWire"]

_STOP: dict[StopKind, str] = {"stop": "end_turn", "tool_use": "tool_use", "length": "max_tokens"}
_ERROR_TYPE = {
    "rate_limit": "rate_limit_error",
    "overloaded": "overloaded_error",
    "invalid_request": "invalid_request_error",
    "authentication": "authentication_error",
    "permission": "permission_error",
    "not_found": "not_found_error",
    "server": "api_error",
}
_DEFAULT_MESSAGE = {
    "rate_limit": "Number of request tokens has exceeded your per-minute rate limit (scripted)",
    "overloaded": "Overloaded",
    "server": "Internal server error",
}


def _tool_id(block: ToolCall, ctx: WireContext, index: int) -> str:
    return block.id or f"toolu_scripted_{ctx.request_number:04d}_{index:02d}"


def _usage(turn: ScriptedTurn, output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": turn.usage.input,
        "cache_creation_input_tokens": turn.usage.cache_write,
        "cache_read_input_tokens": turn.usage.cache_read,
        "output_tokens": output_tokens,
    }


def _deltas(index: int, kind: str, key: str, pieces: list[str]) -> list[bytes]:
    # Templated by hand: one json.dumps of a string per event keeps 20k-event turns fast to encode.
    head = (
        "event: content_block_delta\ndata: "
        f'{{"type":"content_block_delta","index":{index},"delta":{{"type":"{kind}","{key}":'
    ).encode()
    return [head + dumps(piece).encode() + b"}}\n\n" for piece in pieces]


def _block_start(block: Text | Thinking | ToolCall, ctx: WireContext, index: int) -> dict[str, object]:
    if isinstance(block, Text):
        return {"type": "text", "text": ""}
    if isinstance(block, Thinking):
        return {"type": "thinking", "thinking": "", "signature": ""}
    return {"type": "tool_use", "id": _tool_id(block, ctx, index), "name": block.name, "input": {}}


def _block_events(block: Text | Thinking | ToolCall, ctx: WireContext, index: int) -> list[bytes]:
    start = {"type": "content_block_start", "index": index, "content_block": _block_start(block, ctx, index)}
    events = [sse("content_block_start", dumps(start))]
    pieces = block_pieces(block)
    if isinstance(block, Text):
        events += _deltas(index, "text_delta", "text", pieces)
    elif isinstance(block, Thinking):
        events += _deltas(index, "thinking_delta", "thinking", pieces)
        signature = {"type": "signature_delta", "signature": block.signature}
        delta = {"type": "content_block_delta", "index": index, "delta": signature}
        events.append(sse("content_block_delta", dumps(delta)))
    else:
        events += _deltas(index, "input_json_delta", "partial_json", pieces)
    events.append(sse("content_block_stop", dumps({"type": "content_block_stop", "index": index})))
    return events


def _message(
    turn: ScriptedTurn, ctx: WireContext, content: list[dict[str, object]], *, final: bool
) -> dict[str, object]:
    return {
        "id": f"msg_scripted_{ctx.request_number:04d}",
        "type": "message",
        "role": "assistant",
        "model": ctx.model,
        "content": content,
        "stop_reason": _STOP[turn.stop_kind()] if final else None,
        "stop_sequence": None,
        "usage": _usage(turn, turn.output_tokens() if final else 1),
    }


def _final_block(block: Text | Thinking | ToolCall, ctx: WireContext, index: int) -> dict[str, object]:
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, Thinking):
        return {"type": "thinking", "thinking": block.text, "signature": block.signature}
    return {"type": "tool_use", "id": _tool_id(block, ctx, index), "name": block.name, "input": block.arguments}


class AnthropicWire:
    """Encoder for the Anthropic Messages API."""

    api: ApiName = "anthropic"

    def stream_events(self, turn: ScriptedTurn, ctx: WireContext) -> list[bytes]:
        """message_start … message_stop for the turn."""
        start = {"type": "message_start", "message": _message(turn, ctx, [], final=False)}
        events = [sse("message_start", dumps(start)), sse("ping", '{"type":"ping"}')]
        for index, block in enumerate(turn.blocks):
            events += _block_events(block, ctx, index)
        delta = {
            "type": "message_delta",
            "delta": {"stop_reason": _STOP[turn.stop_kind()], "stop_sequence": None},
            "usage": _usage(turn, turn.output_tokens()),
        }
        events.append(sse("message_delta", dumps(delta)))
        events.append(sse("message_stop", '{"type":"message_stop"}'))
        return events

    def stream_error(self, fault: StreamError, ctx: WireContext, sequence_number: int) -> bytes:
        """`event: error` carrying an overloaded_error, as the API sends mid-stream."""
        return sse("error", dumps(_error("overloaded_error", fault.message)))

    def response_body(self, turn: ScriptedTurn, ctx: WireContext) -> bytes:
        """The complete message object."""
        content = [_final_block(b, ctx, i) for i, b in enumerate(turn.blocks)]
        return dumps(_message(turn, ctx, content, final=True)).encode()

    def error_body(self, status: int, message: str | None) -> bytes:
        """`{"type":"error","error":{"type":…,"message":…}}`."""
        kind = classify_status(status)
        text = message or _DEFAULT_MESSAGE.get(kind, f"scripted error {status}")
        return dumps(_error(_ERROR_TYPE[kind], text)).encode()

    def context_overflow_body(self, fault: ContextOverflow) -> bytes:
        """invalid_request_error "prompt is too long: N tokens > M maximum"."""
        text = f"prompt is too long: {fault.tokens} tokens > {fault.limit} maximum"
        return dumps(_error("invalid_request_error", text)).encode()


def _error(kind: str, message: str) -> dict[str, object]:
    return {"type": "error", "error": {"type": kind, "message": message}}
