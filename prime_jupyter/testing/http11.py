"""The sliver of HTTP/1.1 the scripted server needs, on raw asyncio streams.

Raw streams rather than a framework so that a test can choose exactly when the status line goes out
(slow first byte) and can drop a connection in the middle of a chunked body (cut stream).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from http import HTTPStatus

__all__ = ["LAST_CHUNK", "MAX_HEAD", "BadRequest", "HttpRequest", "chunk", "head", "read_request"]

LAST_CHUNK = b"0\r\n\r\n"
MAX_HEAD = 1 << 20
"""Stream reader limit: the longest request head accepted."""


class BadRequest(Exception):
    """The bytes on the connection are not an HTTP/1.1 request we can answer."""


@dataclass(frozen=True)
class HttpRequest:
    """A parsed request; header names are lower-cased."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes
    keep_alive: bool

    @property
    def path(self) -> str:
        """The target without its query string."""
        return self.target.split("?", 1)[0]


async def read_request(reader: asyncio.StreamReader) -> HttpRequest | None:
    """Read one request; None when the client closed the connection between requests."""
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial.strip():
            return None
        raise BadRequest("connection closed inside the request head") from exc
    except asyncio.LimitOverrunError as exc:
        raise BadRequest("request head too large") from exc
    lines = raw[:-4].decode("latin-1").split("\r\n")
    try:
        method, target, version = lines[0].split(" ", 2)
    except ValueError as exc:
        raise BadRequest(f"bad request line {lines[0]!r}") from exc
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0") or "0"))
    connection = headers.get("connection", "").lower()
    keep_alive = connection != "close" and (version != "HTTP/1.0" or connection == "keep-alive")
    return HttpRequest(method.upper(), target, headers, body, keep_alive)


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass  # trailers
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)


def head(status: int, headers: dict[str, str]) -> bytes:
    """The status line and headers of a response, blank line included."""
    reason = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Error"
    lines = [f"HTTP/1.1 {status} {reason}"] + [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def chunk(data: bytes) -> bytes:
    """One frame of a chunked body (never the terminating empty chunk)."""
    return b"%x\r\n%s\r\n" % (len(data), data)
