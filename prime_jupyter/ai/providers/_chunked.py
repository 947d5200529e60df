"""Decoding a response body as it arrives: HTTP/1.1 chunked framing, and gzip or deflate.

One `feed` per network read decodes every chunk the read completed, so a stream of small chunks (one
SSE event each) costs a slice per chunk, not an await per chunk-size line and per chunk.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

__all__ = ["ChunkedDecoder", "decompressed"]


async def decompressed(pieces: AsyncIterator[bytes], encoding: str) -> AsyncIterator[bytes]:
    """`pieces` of a gzip or deflate body, decompressed."""
    import zlib

    decoder = zlib.decompressobj(wbits=47 if encoding == "gzip" else 15)
    async for piece in pieces:
        if out := decoder.decompress(piece):
            yield out
    if tail := decoder.flush():
        yield tail


class ChunkedDecoder:
    """Decodes a chunked body fed in pieces of any size: each `feed` returns the data it completed."""

    __slots__ = ("_buffer", "_crlf", "_data", "_trailers", "done", "extra")

    def __init__(self) -> None:
        self._buffer = b""
        self._data = 0  # bytes of the current chunk's data still to come
        self._crlf = 0  # bytes of the CRLF after it still to come
        self._trailers = False
        self.done = False
        self.extra = b""
        """Bytes after the body's end (none from a server that waits for the next request)."""

    def feed(self, data: bytes) -> bytes:
        buffer = self._buffer + data if self._buffer else data
        out: list[bytes] = []
        pos, end = 0, len(buffer)
        while pos < end:
            if self._data:
                stop = min(pos + self._data, end)
                out.append(buffer[pos:stop])
                self._data -= stop - pos
                pos = stop
                self._crlf = 0 if self._data else 2
            elif self._crlf:
                taken = min(self._crlf, end - pos)
                pos, self._crlf = pos + taken, self._crlf - taken
            else:
                line_end = buffer.find(b"\r\n", pos)
                if line_end < 0:
                    if end - pos > 4096:
                        raise ValueError("a chunk-size line longer than 4096 bytes")
                    break
                line, pos = buffer[pos:line_end], line_end + 2
                if self._trailers:
                    if not line:
                        self.done, self.extra = True, buffer[pos:]
                        return b"".join(out)
                    continue
                size = int(line.split(b";", 1)[0].strip(), 16)
                self._data = size
                self._trailers = size == 0
        self._buffer = buffer[pos:]
        return out[0] if len(out) == 1 else b"".join(out)
