"""The script vocabulary of the scripted LLM server: what one assistant turn says and how it misbehaves.

A script is plain data (pydantic, JSON-serialisable) so the same turns drive an in-process server in a
test and a subprocess server from a `{"turns": [...]}` file. The wire modules turn a `ScriptedTurn`
into the exact bytes each provider API would send; nothing here knows about HTTP.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, JsonValue

__all__ = [
    "Block",
    "ContextOverflow",
    "CutStream",
    "Fault",
    "HttpError",
    "JsonAnswer",
    "RejectField",
    "Script",
    "ScriptedTurn",
    "StopKind",
    "StreamError",
    "Text",
    "Thinking",
    "ToolCall",
    "Usage",
    "block_pieces",
    "split_even",
]

StopKind: TypeAlias = Literal["stop", "tool_use", "length"]
"""Provider-neutral stop: `stop` is end_turn/stop/completed, `tool_use` is tool_use/tool_calls,
`length` is max_tokens/length/incomplete(max_output_tokens)."""


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Text(_Data):
    """Visible answer text, streamed as `chunks` deltas of near-equal length."""

    type: Literal["text"] = "text"
    text: str
    chunks: int = Field(default=1, ge=1)


class Thinking(_Data):
    """Reasoning text (anthropic thinking, chat `reasoning_content`, responses reasoning summary)."""

    type: Literal["thinking"] = "thinking"
    text: str
    chunks: int = Field(default=1, ge=1)
    signature: str = "scripted-thinking-signature"


class ToolCall(_Data):
    """A tool call whose arguments JSON is streamed in `chunks` pieces, split regardless of tokens.

    `id` defaults to a generated provider-style id (`toolu_…` / `call_…`) unique per request.
    """

    type: Literal["tool_call"] = "tool_call"
    name: str
    arguments: dict[str, JsonValue] = Field(default_factory=dict)
    id: str | None = None
    chunks: int = Field(default=1, ge=1)

    def arguments_json(self) -> str:
        """The arguments as the compact JSON text the providers stream."""
        return json.dumps(self.arguments, separators=(",", ":"), ensure_ascii=False)


Block: TypeAlias = Annotated[Text | Thinking | ToolCall, Field(discriminator="type")]


class Usage(_Data):
    """Token counts, in Anthropic's convention: `input` excludes cache reads and writes.

    OpenAI's prompt/input tokens are reported as `input + cache_read + cache_write`, with
    `cache_read` as the cached tokens. `output=None` means "one token per streamed delta".
    """

    input: int = 100
    output: int | None = None
    cache_read: int = 0
    cache_write: int = 0


class HttpError(_Data):
    """Answer with an HTTP error status before any streaming, in the provider's error body shape.

    429 maps to a rate-limit error, 529 (and 503) to overloaded, 400 to invalid request, other
    5xx to a server error. `retry_after` becomes the `retry-after` header when set.
    """

    type: Literal["http_error"] = "http_error"
    status: int = 500
    message: str | None = None
    retry_after: float | None = None


class ContextOverflow(_Data):
    """A 400 with the provider's real "prompt too long" / `context_length_exceeded` error."""

    type: Literal["context_overflow"] = "context_overflow"
    tokens: int = 250_000
    limit: int = 200_000


class CutStream(_Data):
    """Send the first `after_events` SSE events, then close the socket with no terminating chunk."""

    type: Literal["cut_stream"] = "cut_stream"
    after_events: int = Field(default=3, ge=0)


class StreamError(_Data):
    """After `after_events` SSE events, send the provider's in-stream error event and end the body.

    Anthropic: `event: error` (overloaded_error). Chat: a `data: {"error": …}` chunk. Responses:
    `response.failed` (or an `error` event when `responses_event="error"`).
    """

    type: Literal["stream_error"] = "stream_error"
    after_events: int = Field(default=3, ge=0)
    message: str = "Overloaded"
    responses_event: Literal["response.failed", "error"] = "response.failed"


class JsonAnswer(_Data):
    """A server without streaming: status 200 and one JSON body (`body`), whatever the request asked."""

    type: Literal["json_answer"] = "json_answer"
    body: str = '{"error": {"message": "streaming is not supported", "type": "invalid_request_error"}}'


class RejectField(_Data):
    """A server that refuses a request field it does not know (`stream_options` on some OpenAI-compatible
    servers): a 400 naming it while the request carries it; the turn answers the first request without it."""

    type: Literal["reject_field"] = "reject_field"
    field: str = "stream_options"


Fault: TypeAlias = Annotated[
    HttpError | ContextOverflow | CutStream | StreamError | JsonAnswer | RejectField, Field(discriminator="type")
]


class ScriptedTurn(_Data):
    """One assistant response, served to whichever API endpoint asks next.

    `stop=None` means `tool_use` when a block is a `ToolCall`, else `stop`. `chunk_delay_s` sleeps
    between SSE events; `first_byte_delay_s` delays the status line (the SDK's `create()` waits);
    `first_event_delay_s` sends headers at once and delays the first event (time to first token);
    `last_chunk_delay_s` delays the end of the body after the last event (as a slow proxy's buffering does).
    """

    blocks: list[Block] = Field(default_factory=list)
    stop: StopKind | None = None
    usage: Usage = Usage()
    chunk_delay_s: float = Field(default=0.0, ge=0)
    first_byte_delay_s: float = Field(default=0.0, ge=0)
    first_event_delay_s: float = Field(default=0.0, ge=0)
    last_chunk_delay_s: float = Field(default=0.0, ge=0)
    fault: Fault | None = None

    def stop_kind(self) -> StopKind:
        """The effective stop kind, resolving the default."""
        if self.stop is not None:
            return self.stop
        return "tool_use" if any(isinstance(b, ToolCall) for b in self.blocks) else "stop"

    def output_tokens(self) -> int:
        """Reported output tokens: the explicit count, else one per streamed delta."""
        if self.usage.output is not None:
            return self.usage.output
        return sum(len(block_pieces(b)) for b in self.blocks)


class Script(_Data):
    """The file format of the CLI: `{"turns": [...]}`."""

    turns: list[ScriptedTurn] = Field(default_factory=list)


def split_even(text: str, chunks: int) -> list[str]:
    """Split `text` into `chunks` contiguous pieces of near-equal length (fewer if it is shorter).

    An empty text gives no pieces: providers send no delta for it.
    """
    if not text:
        return []
    n = max(1, min(chunks, len(text)))
    size, extra = divmod(len(text), n)
    pieces: list[str] = []
    start = 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces


def block_pieces(block: Text | Thinking | ToolCall) -> list[str]:
    """The delta strings a block streams as: text pieces, or arguments-JSON pieces."""
    if isinstance(block, ToolCall):
        return split_even(block.arguments_json(), block.chunks)
    return split_even(block.text, block.chunks)
