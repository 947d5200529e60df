"""OpenAI Chat Completions wire format (`POST /v1/chat/completions`), plus OpenAI's error bodies.

Stream: `data: <chat.completion.chunk>` lines — a role chunk, `reasoning_content` deltas for thinking
(as vLLM / DeepSeek-style servers send), `content` deltas, `tool_calls` deltas (index, id and name
first, then argument pieces), a finish chunk, a usage chunk with empty `choices` when
`stream_options.include_usage` is set, then `data: [DONE]`.
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
from prime_jupyter.testing.wire_common import (
    ApiName,
    WireContext,
    classify_status,
    dumps,
    reasoning_tokens,
    sse,
)

__all__ = ["OpenAIChatWire", "openai_context_overflow_body", "openai_error_body"]

_FINISH: dict[StopKind, str] = {"stop": "stop", "tool_use": "tool_calls", "length": "length"}
_ERRORS = {
    "rate_limit": ("requests", "rate_limit_exceeded", "Rate limit reached for requests (scripted)."),
    "overloaded": ("server_error", None, "The server is overloaded or not ready yet."),
    "invalid_request": ("invalid_request_error", None, "Invalid request (scripted)."),
    "authentication": ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    "permission": ("invalid_request_error", None, "You are not allowed to do this (scripted)."),
    "not_found": ("invalid_request_error", "unknown_url", "Unknown request URL (scripted)."),
    "server": (
        "server_error",
        None,
        "The server had an error while processing your request. Sorry about that!",
    ),
}


def openai_error_body(status: int, message: str | None) -> bytes:
    """`{"error":{"message","type","param","code"}}` for an HTTP error status."""
    kind, code, default = _ERRORS[classify_status(status)]
    error = {"message": message or default, "type": kind, "param": None, "code": code}
    return dumps({"error": error}).encode()


def openai_context_overflow_body(fault: ContextOverflow, param: str) -> bytes:
    """The 400 `context_length_exceeded` error body."""
    message = (
        f"This model's maximum context length is {fault.limit} tokens. However, your messages "
        f"resulted in {fault.tokens} tokens. Please reduce the length of the messages."
    )
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": "context_length_exceeded"}
    return dumps({"error": error}).encode()


def _tool_id(block: ToolCall, ctx: WireContext, index: int) -> str:
    return block.id or f"call_scripted_{ctx.request_number:04d}_{index:02d}"


def _usage(turn: ScriptedTurn) -> dict[str, object]:
    u = turn.usage
    prompt = u.input + u.cache_read + u.cache_write
    output = turn.output_tokens()
    return {
        "prompt_tokens": prompt,
        "completion_tokens": output,
        "total_tokens": prompt + output,
        "prompt_tokens_details": {"cached_tokens": u.cache_read},
        "completion_tokens_details": {"reasoning_tokens": reasoning_tokens(turn)},
    }


class _Chunks:
    """Encodes chunks sharing one id/created/model header; deltas are templated for speed."""

    def __init__(self, ctx: WireContext) -> None:
        self._head = (
            f'data: {{"id":"chatcmpl-scripted-{ctx.request_number:04d}","object":"chat.completion.chunk",'
            f'"created":{ctx.created},"model":{dumps(ctx.model)},"system_fingerprint":null,"choices":'
        ).encode()

    def delta(self, delta: dict[str, object], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return self._head + dumps([choice]).encode() + b"}\n\n"

    def text(self, key: str, pieces: list[str]) -> list[bytes]:
        head = self._head + f'[{{"index":0,"delta":{{"{key}":'.encode()
        tail = b'},"logprobs":null,"finish_reason":null}]}\n\n'
        return [head + dumps(piece).encode() + tail for piece in pieces]

    def usage(self, turn: ScriptedTurn) -> bytes:
        return self._head + b"[]," + f'"usage":{dumps(_usage(turn))}}}\n\n'.encode()


def _tool_events(chunks: _Chunks, block: ToolCall, ctx: WireContext, block_index: int, k: int) -> list[bytes]:
    function = {"name": block.name, "arguments": ""}
    first = {"index": k, "id": _tool_id(block, ctx, block_index), "type": "function", "function": function}
    events = [chunks.delta({"tool_calls": [first]})]
    for piece in block_pieces(block):
        events.append(chunks.delta({"tool_calls": [{"index": k, "function": {"arguments": piece}}]}))
    return events


class OpenAIChatWire:
    """Encoder for the OpenAI Chat Completions API."""

    api: ApiName = "openai_chat"

    def stream_events(self, turn: ScriptedTurn, ctx: WireContext) -> list[bytes]:
        """Role chunk … finish chunk, optional usage chunk, `[DONE]`."""
        chunks = _Chunks(ctx)
        events = [chunks.delta({"role": "assistant", "content": "", "refusal": None})]
        tool_count = 0
        for index, block in enumerate(turn.blocks):
            if isinstance(block, Text):
                events += chunks.text("content", block_pieces(block))
            elif isinstance(block, Thinking):
                events += chunks.text("reasoning_content", block_pieces(block))
            else:
                events += _tool_events(chunks, block, ctx, index, tool_count)
                tool_count += 1
        events.append(chunks.delta({}, _FINISH[turn.stop_kind()]))
        if ctx.include_usage:
            events.append(chunks.usage(turn))
        events.append(sse(None, "[DONE]"))
        return events

    def stream_error(self, fault: StreamError, ctx: WireContext, sequence_number: int) -> bytes:
        """A `data: {"error": …}` chunk, which the SDK raises as `APIError`."""
        error = {"message": fault.message, "type": "server_error", "param": None, "code": "overloaded"}
        return sse(None, dumps({"error": error}))

    def response_body(self, turn: ScriptedTurn, ctx: WireContext) -> bytes:
        """The complete `chat.completion` object."""
        text = "".join(b.text for b in turn.blocks if isinstance(b, Text))
        message: dict[str, object] = {"role": "assistant", "content": text or None, "refusal": None}
        thinking = "".join(b.text for b in turn.blocks if isinstance(b, Thinking))
        if thinking:
            message["reasoning_content"] = thinking
        calls = [
            {
                "id": _tool_id(b, ctx, i),
                "type": "function",
                "function": {"name": b.name, "arguments": b.arguments_json()},
            }
            for i, b in enumerate(turn.blocks)
            if isinstance(b, ToolCall)
        ]
        if calls:
            message["tool_calls"] = calls
        choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": _FINISH[turn.stop_kind()]}
        body = {
            "id": f"chatcmpl-scripted-{ctx.request_number:04d}",
            "object": "chat.completion",
            "created": ctx.created,
            "model": ctx.model,
            "choices": [choice],
            "usage": _usage(turn),
        }
        return dumps(body).encode()

    def error_body(self, status: int, message: str | None) -> bytes:
        """OpenAI's error body."""
        return openai_error_body(status, message)

    def context_overflow_body(self, fault: ContextOverflow) -> bytes:
        """`context_length_exceeded` on `messages`."""
        return openai_context_overflow_body(fault, "messages")
