"""NDJSON and SSE framing of wire models, both ways.

NDJSON: one JSON object per line, terminated by `"\\n"`. SSE: `id: <seq>` (when sequenced), `data:
<json>`, a blank line; `: heartbeat` comments keep idle connections open. JSON is written without
ASCII escaping, so U+2028 and U+2029 travel raw inside strings: readers split on `"\\n"` only, never
with `str.splitlines()` (which splits on them and would cut a frame in two; style.md rule 11). The
decoders are incremental: feed them chunks as they arrive, complete lines come out. The SSE decoder is
the package's one (`prime_jupyter._sse`), named here too for the readers of our streams.
"""

from __future__ import annotations

from pydantic import BaseModel

from prime_jupyter._sse import SseDecoder, SseMessage
from prime_jupyter.protocol.wire import dump_json

__all__ = [
    "SSE_HEARTBEAT",
    "NdjsonDecoder",
    "SseDecoder",
    "SseMessage",
    "encode_ndjson",
    "encode_sse",
]

SSE_HEARTBEAT = b": heartbeat\n\n"


def encode_ndjson(model: BaseModel) -> bytes:
    """One NDJSON line (with its `"\\n"`)."""
    return (dump_json(model) + "\n").encode()


def encode_sse(model: BaseModel, seq: int | None = None) -> bytes:
    """One SSE message; `seq` becomes its `id:` (the `Last-Event-ID` a reconnecting client sends back)."""
    head = f"id: {seq}\n" if seq is not None else ""
    return f"{head}data: {dump_json(model)}\n\n".encode()


class _Lines:
    """Complete lines of a byte stream, split on `"\\n"` only, a trailing `"\\r"` dropped. Splitting bytes
    is safe for UTF-8: the byte 0x0A never occurs inside a multi-byte character."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, chunk: bytes) -> list[str]:
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        return [line.rstrip(b"\r").decode() for line in lines]


class NdjsonDecoder(_Lines):
    """NDJSON lines of a byte stream; blank lines are skipped."""

    def feed(self, chunk: bytes) -> list[str]:
        """The complete lines that `chunk` finished (decoded as UTF-8)."""
        return [line for line in super().feed(chunk) if line]

    def close(self) -> list[str]:
        """The last line if the stream ended without a final `"\\n"`."""
        rest, self._buffer = self._buffer.rstrip(b"\r"), b""
        return [rest.decode()] if rest else []
