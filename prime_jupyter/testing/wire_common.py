"""What the three provider wire formats share: request context, SSE framing and error classes.

Every wire module implements `WireFormat`: a turn becomes a list of pre-encoded SSE events (bytes),
so the server can write them in one large write, cut them after N events, or pace them.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeAlias

from prime_jupyter.testing.script import ContextOverflow, ScriptedTurn, StreamError, Thinking, block_pieces

__all__ = [
    "ApiName",
    "ErrorClass",
    "WireContext",
    "WireFormat",
    "classify_status",
    "dumps",
    "reasoning_tokens",
    "sse",
]

ApiName: TypeAlias = Literal["anthropic", "openai_chat", "openai_responses"]
ErrorClass: TypeAlias = Literal[
    "rate_limit", "overloaded", "invalid_request", "authentication", "permission", "not_found", "server"
]


@dataclass(frozen=True)
class WireContext:
    """Per-request facts the encoders echo: the requested model and the request's 1-based number."""

    model: str
    request_number: int
    include_usage: bool = False
    created: int = field(default_factory=lambda: int(time.time()))


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def dumps(value: object) -> str:
    """Compact JSON with raw UTF-8, as the provider APIs send it.

    One shared encoder: `json.dumps` with non-default options builds a new one per call, which
    dominated the cost of encoding 20k-delta turns.
    """
    return _ENCODER.encode(value)


def sse(event: str | None, data: str) -> bytes:
    """One encoded server-sent event: an optional `event:` line, a `data:` line, a blank line."""
    if event is None:
        return f"data: {data}\n\n".encode()
    return f"event: {event}\ndata: {data}\n\n".encode()


def classify_status(status: int) -> ErrorClass:
    """Which kind of provider error an HTTP status stands for."""
    if status == 429:
        return "rate_limit"
    if status in (503, 529):
        return "overloaded"
    if status == 401:
        return "authentication"
    if status == 403:
        return "permission"
    if status == 404:
        return "not_found"
    if 400 <= status < 500:
        return "invalid_request"
    return "server"


class WireFormat(Protocol):
    """One provider API's encoding of turns, errors and non-streaming responses."""

    api: ApiName

    def stream_events(self, turn: ScriptedTurn, ctx: WireContext) -> list[bytes]:
        """The complete SSE event sequence of a successful streamed turn, terminator included."""
        ...

    def stream_error(self, fault: StreamError, ctx: WireContext, sequence_number: int) -> bytes:
        """The in-stream error event(s) sent in place of the rest of the stream."""
        ...

    def response_body(self, turn: ScriptedTurn, ctx: WireContext) -> bytes:
        """The JSON body of the non-streaming response for the turn."""
        ...

    def error_body(self, status: int, message: str | None) -> bytes:
        """The provider's JSON error body for an HTTP error status."""
        ...

    def context_overflow_body(self, fault: ContextOverflow) -> bytes:
        """The provider's 400 body for a prompt longer than the context window."""
        ...


def reasoning_tokens(turn: ScriptedTurn) -> int:
    """Output tokens attributed to reasoning: one per thinking delta, capped by the output count."""
    thinking = sum(len(block_pieces(b)) for b in turn.blocks if isinstance(b, Thinking))
    return min(thinking, turn.output_tokens())
