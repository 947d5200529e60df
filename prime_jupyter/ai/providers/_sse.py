"""A minimal Server-Sent Events reader over raw bytes.

The SDKs' own event parsing builds a pydantic object per delta (about 27 us each here, most of a
delta's budget), so providers read the response bytes (`_client.Response.aiter_bytes`) and parse events
themselves with `json.loads`. Lines split on "\\n" only (style rule 11).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator

__all__ = ["drain", "iter_sse"]


async def iter_sse(chunks: AsyncIterable[bytes]) -> AsyncIterator[tuple[str, str]]:
    """Yield `(event, data)` for each SSE event; `event` is "" when the server named none."""
    buffer = b""
    async for chunk in chunks:
        buffer += chunk
        if b"\r" in buffer:
            if buffer.endswith(b"\r"):
                continue  # a \r\n may be split across chunks
            buffer = buffer.replace(b"\r\n", b"\n")
        if b"\n\n" not in buffer:
            continue
        *blocks, buffer = buffer.split(b"\n\n")
        for block in blocks:
            parsed = _parse_block(block)
            if parsed is not None:
                yield parsed
    if buffer.strip():
        parsed = _parse_block(buffer)
        if parsed is not None:
            yield parsed


def _parse_block(block: bytes) -> tuple[str, str] | None:
    event = ""
    data: list[str] = []
    for line in block.split(b"\n"):
        if line.startswith(b"data:"):
            data.append(line[5:].removeprefix(b" ").decode("utf-8"))
        elif line.startswith(b"event:"):
            event = line[6:].strip().decode("utf-8")
    if not data:
        return None
    return event, "\n".join(data)


async def drain(chunks: AsyncIterator[bytes], timeout_s: float = 1.0) -> None:
    """Read a response to its end after the last event, so its connection can be reused. A server that
    keeps the body open longer loses the connection instead (closing it is all that is left to do)."""

    async def _read() -> None:
        async for _ in chunks:
            pass

    try:
        await asyncio.wait_for(_read(), timeout_s)
    except (TimeoutError, Exception):
        return
