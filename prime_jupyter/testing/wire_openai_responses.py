"""OpenAI Responses API wire format (`POST /v1/responses`), as the `openai` SDK parses it.

Stream: `response.created`, `response.in_progress`, then per output item `response.output_item.added`,
its part/delta/done events (reasoning summary, output text, function-call arguments) and
`response.output_item.done`; last `response.completed`, or `response.incomplete`
(`incomplete_details.reason = "max_output_tokens"`) for a length stop. Every event carries a
`sequence_number`.
"""

from __future__ import annotations

from prime_jupyter.testing.script import (
    ContextOverflow,
    ScriptedTurn,
    StreamError,
    Text,
    Thinking,
    ToolCall,
    block_pieces,
)
from prime_jupyter.testing.wire_common import ApiName, WireContext, dumps, reasoning_tokens, sse
from prime_jupyter.testing.wire_openai_chat import openai_context_overflow_body, openai_error_body

__all__ = ["OpenAIResponsesWire"]

_Json = dict[str, object]


def _usage(turn: ScriptedTurn) -> _Json:
    u = turn.usage
    prompt = u.input + u.cache_read + u.cache_write
    output = turn.output_tokens()
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": u.cache_read, "cache_write_tokens": u.cache_write},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens(turn)},
        "total_tokens": prompt + output,
    }


def _response(ctx: WireContext, status: str, output: list[_Json], usage: _Json | None) -> _Json:
    return {
        "id": f"resp_scripted_{ctx.request_number:04d}",
        "object": "response",
        "created_at": ctx.created,
        "status": status,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "instructions": None,
        "metadata": {},
        "model": ctx.model,
        "output": output,
        "parallel_tool_calls": True,
        "temperature": 1.0,
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "usage": usage,
    }


def _item(block: Text | Thinking | ToolCall, ctx: WireContext, index: int, status: str | None) -> _Json:
    """The output item; `status=None` gives the empty in-progress item of `output_item.added`."""
    done = status is not None
    suffix = f"scripted_{ctx.request_number:04d}_{index:02d}"
    if isinstance(block, Thinking):
        summary = [{"type": "summary_text", "text": block.text}] if done else []
        return {
            "id": f"rs_{suffix}",
            "type": "reasoning",
            "summary": summary,
            "encrypted_content": block.signature if done else None,
        }
    if isinstance(block, Text):
        content = [_text_part(block.text)] if done else []
        return {
            "id": f"msg_{suffix}",
            "type": "message",
            "status": status or "in_progress",
            "role": "assistant",
            "content": content,
        }
    return {
        "id": f"fc_{suffix}",
        "type": "function_call",
        "status": status or "in_progress",
        "arguments": block.arguments_json() if done else "",
        "call_id": block.id or f"call_{suffix}",
        "name": block.name,
    }


def _text_part(text: str) -> _Json:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


class _Emitter:
    """Accumulates events, numbering them with `sequence_number` in order."""

    def __init__(self) -> None:
        self.events: list[bytes] = []

    def emit(self, kind: str, payload: _Json) -> None:
        data = {"type": kind, **payload, "sequence_number": len(self.events)}
        self.events.append(sse(kind, dumps(data)))

    def deltas(self, kind: str, ids: str, pieces: list[str], extra: str = "") -> None:
        # Templated by hand so that 20k-delta turns encode at well over 200k events/s.
        head = f'event: {kind}\ndata: {{"type":"{kind}",{ids},"delta":'.encode()
        for piece in pieces:
            tail = f'{extra},"sequence_number":{len(self.events)}}}\n\n'.encode()
            self.events.append(head + dumps(piece).encode() + tail)


def _block_events(out: _Emitter, block: Text | Thinking | ToolCall, ctx: WireContext, i: int, status: str) -> None:
    added = _item(block, ctx, i, None)
    item_id = str(added["id"])
    where: _Json = {"item_id": item_id, "output_index": i}
    ids = f'"item_id":{dumps(item_id)},"output_index":{i}'
    out.emit("response.output_item.added", {"output_index": i, "item": added})
    pieces = block_pieces(block)
    if isinstance(block, Thinking):
        part = {"type": "summary_text", "text": block.text}
        out.emit("response.reasoning_summary_part.added", {**where, "summary_index": 0, "part": {**part, "text": ""}})
        out.deltas("response.reasoning_summary_text.delta", ids + ',"summary_index":0', pieces)
        out.emit("response.reasoning_summary_text.done", {**where, "summary_index": 0, "text": block.text})
        out.emit("response.reasoning_summary_part.done", {**where, "summary_index": 0, "part": part})
    elif isinstance(block, Text):
        at: _Json = {**where, "content_index": 0}
        out.emit("response.content_part.added", {**at, "part": _text_part("")})
        out.deltas("response.output_text.delta", ids + ',"content_index":0', pieces, ',"logprobs":[]')
        out.emit("response.output_text.done", {**at, "text": block.text, "logprobs": []})
        out.emit("response.content_part.done", {**at, "part": _text_part(block.text)})
    else:
        out.deltas("response.function_call_arguments.delta", ids, pieces)
        out.emit("response.function_call_arguments.done", {**where, "arguments": block.arguments_json()})
    out.emit("response.output_item.done", {"output_index": i, "item": _item(block, ctx, i, status)})


def _final_output(turn: ScriptedTurn, ctx: WireContext) -> tuple[str, list[_Json]]:
    status = "incomplete" if turn.stop_kind() == "length" else "completed"
    last = len(turn.blocks) - 1
    items = [_item(b, ctx, i, status if i == last else "completed") for i, b in enumerate(turn.blocks)]
    return status, items


class OpenAIResponsesWire:
    """Encoder for the OpenAI Responses API."""

    api: ApiName = "openai_responses"

    def stream_events(self, turn: ScriptedTurn, ctx: WireContext) -> list[bytes]:
        """`response.created` … `response.completed` / `response.incomplete`."""
        out = _Emitter()
        out.emit("response.created", {"response": _response(ctx, "in_progress", [], None)})
        out.emit("response.in_progress", {"response": _response(ctx, "in_progress", [], None)})
        status, items = _final_output(turn, ctx)
        last = len(turn.blocks) - 1
        for i, block in enumerate(turn.blocks):
            _block_events(out, block, ctx, i, status if i == last else "completed")
        final = _response(ctx, status, items, _usage(turn))
        out.emit("response.completed" if status == "completed" else "response.incomplete", {"response": final})
        return out.events

    def stream_error(self, fault: StreamError, ctx: WireContext, sequence_number: int) -> bytes:
        """`response.failed` with `response.error`, or a bare `error` event."""
        error = {"code": "server_error", "message": fault.message}
        if fault.responses_event == "error":
            data: _Json = {"type": "error", **error, "param": None, "sequence_number": sequence_number}
            return sse("error", dumps(data))
        failed = {**_response(ctx, "failed", [], None), "error": error}
        data = {"type": "response.failed", "response": failed, "sequence_number": sequence_number}
        return sse("response.failed", dumps(data))

    def response_body(self, turn: ScriptedTurn, ctx: WireContext) -> bytes:
        """The complete `response` object."""
        status, items = _final_output(turn, ctx)
        return dumps(_response(ctx, status, items, _usage(turn))).encode()

    def error_body(self, status: int, message: str | None) -> bytes:
        """OpenAI's error body."""
        return openai_error_body(status, message)

    def context_overflow_body(self, fault: ContextOverflow) -> bytes:
        """`context_length_exceeded` on `input`."""
        return openai_context_overflow_body(fault, "input")
