"""The providers' HTTP transport: POST an encoded JSON body, read the answer's bytes as they arrive.

The providers encode their bodies themselves (`_request`) and parse the SSE bytes themselves (`_sse`), so
all they need of HTTP is one POST and its body as a byte stream. That is written here, on asyncio
streams, instead of taken from the provider SDKs or an HTTP library, because of what each costs at
launch (issue 14; `python -X importtime` and wall clock on a quiet machine, on top of `asyncio` and
`ssl`, which every option needs): the SDK client (`anthropic._base_client`) 240 ms importtime even with
its types deferred; aiohttp (the SDKs' fast stack) about 115 ms; httpx about 30 ms; asyncio streams
nothing, as the agent's loop runs on asyncio anyway (and `ssl` is imported only for https). Per streamed
delta the work here is one `read()` and a slice, no per-event object.

A body comes as bytes or as pieces, written without joining them (`_body`).

HTTP/1.1, what the providers' streaming APIs use: one request at a time per connection; bodies by
`Content-Length`, chunked, or up to the close; `gzip`/`deflate` bodies decoded. Kept-alive connections
are pooled per event loop and origin (a connection belongs to the loop that opened it), so a session's
turns reuse theirs; a kept connection the server closed meanwhile is replaced once, before any byte of
the answer. Proxies and certificates: `_connect`.

Failures are `ai.errors` exceptions: `ProviderStatusError` (a status of 400 or more: its code, the API's
error type and message, `retry-after`, the request id), `ProviderConnectionError` (no connection, a
connection that broke before the answer ended, no byte for `timeout_s`), `NotAnEventStream` (JSON where
an event stream was asked for). None of them carries a header value or the URL's user or query: the API
key never reaches a message.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import weakref
from collections.abc import AsyncIterator, Awaitable, Mapping
from contextlib import asynccontextmanager
from urllib.parse import SplitResult, urlsplit

from prime_jupyter.ai.errors import NotAnEventStream, ProviderConnectionError, ProviderStatusError
from prime_jupyter.ai.providers._body import Body, body_size, writes
from prime_jupyter.ai.providers._chunked import ChunkedDecoder, decompressed
from prime_jupyter.ai.providers._connect import Origin, Proxy, open_stream, proxy_for

__all__ = ["Response", "close_clients", "post_stream"]

USER_AGENT = f"prime-jupyter (Python {sys.version_info.major}.{sys.version_info.minor})"
_READ = 1 << 16
_NO_BODY = frozenset({204, 304})

_PoolKey = tuple[Origin, Proxy | None]
_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[_PoolKey, list[_Connection]]] = (
    weakref.WeakKeyDictionary()
)
_closed: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
"""Loops whose connections were closed (`close_clients`) with no request since: a response still reading its
tail then (the host disposed of its last session first) closes its connection instead of keeping it, so
none is left open when the loop closes."""


class _Connection:
    __slots__ = ("reader", "used", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.used = False
        """Whether a request went over it before: then a server may have closed it meanwhile."""

    def usable(self) -> bool:
        return not self.writer.is_closing() and not self.reader.at_eof()

    def close(self) -> None:
        self.writer.transport.abort()


class Response:
    """A response whose head was read; `aiter_raw()` gives its body as it arrives, once."""

    def __init__(
        self, connection: _Connection, key: _PoolKey, url: str, status: int, headers: dict[str, str], timeout_s: float
    ) -> None:
        self.status, self.headers, self.url = status, headers, url
        """`url` is as a message may show it: no user, password or query."""
        self._connection, self._key, self._timeout_s = connection, key, timeout_s
        self._watchdog: _Watchdog | None = None
        self._complete = False
        self._reusable = headers.get("connection", "").lower() != "close"

    def aiter_raw(self) -> AsyncIterator[bytes]:
        """The body's bytes, de-chunked (and decompressed), as they arrive; raises `ProviderConnectionError`
        if the connection breaks or stays silent for the timeout before the body ends."""
        encoding = self.headers.get("content-encoding", "").lower()
        pieces = self._body()
        return decompressed(pieces, encoding) if encoding in ("gzip", "deflate") else pieces

    async def aread(self) -> bytes:
        return b"".join([piece async for piece in self.aiter_raw()])

    def close(self) -> None:
        """Give the connection back to the pool if the body was read to its end, else close it."""
        connection, self._connection.used = self._connection, True
        if self._watchdog is not None:
            self._watchdog.stop()
        loop = asyncio.get_running_loop()
        if self._complete and self._reusable and connection.usable() and loop not in _closed:
            _pools.setdefault(loop, {}).setdefault(self._key, []).append(connection)
        else:
            connection.close()

    async def _body(self) -> AsyncIterator[bytes]:
        if self.status in _NO_BODY:
            self._complete = True
            return
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            decoder = ChunkedDecoder()
            while not decoder.done:
                data = await self._read()
                try:
                    piece = decoder.feed(data)
                except ValueError as exc:
                    self._reusable = False
                    raise ProviderConnectionError(f"{self.url} sent a broken chunked body: {exc}", self.url) from None
                if piece:
                    yield piece
            self._reusable = self._reusable and not decoder.extra
        elif "content-length" in self.headers:
            left = _content_length(self.headers["content-length"], self.url)
            while left > 0:
                piece = await self._read(left)
                left -= len(piece)
                yield piece
        else:
            self._reusable = False  # the body ends with the connection
            while piece := await self._read(until_eof=True):
                yield piece
        self._complete = True

    async def _read(self, most: int = _READ, *, until_eof: bool = False) -> bytes:
        watchdog = self._watchdog
        if watchdog is None:
            watchdog = self._watchdog = _Watchdog(self._timeout_s)
        try:
            data = await watchdog.guard(self._connection.reader.read(min(most, _READ)))
        except TimeoutError:
            message = f"the request to {self.url} timed out (no data for {self._timeout_s:g} s)"
            raise ProviderConnectionError(message, self.url, timed_out=True) from None
        except OSError as exc:
            raise ProviderConnectionError(f"the answer from {self.url} broke off: {_why(exc)}", self.url) from exc
        if not data and not until_eof:
            message = f"the answer from {self.url} broke off: the connection closed before its end"
            raise ProviderConnectionError(message, self.url)
        return data


class _Watchdog:
    """A read timeout for a whole body at the cost of one timer, not one per read (`asyncio.timeout` is
    about 4.5 us per read here, a timer scheduled and cancelled each time, for a body read in thousands of
    small pieces): the timer is re-armed only when it fires, and cancels the read it finds waiting too long."""

    __slots__ = ("_handle", "_loop", "_started", "_timeout_s", "_waiting", "fired")

    def __init__(self, timeout_s: float) -> None:
        self._loop = asyncio.get_running_loop()
        self._timeout_s = timeout_s
        self._started = self._loop.time()
        self._waiting: asyncio.Task[object] | None = None
        self.fired = False
        self._handle = self._loop.call_at(self._started + timeout_s, self._check)

    async def guard(self, read: Awaitable[bytes]) -> bytes:
        """`await read`, or `TimeoutError` if it waited `timeout_s` without an answer."""
        task = asyncio.current_task()
        self._waiting, self._started = task, self._loop.time()
        try:
            return await read
        except asyncio.CancelledError:
            if self.fired and task is not None and task.uncancel() == 0:  # ours, not an abort
                raise TimeoutError from None
            raise
        finally:
            self._waiting = None

    def stop(self) -> None:
        self._handle.cancel()

    def _check(self) -> None:
        now = self._loop.time()
        if self._waiting is not None and now - self._started >= self._timeout_s:
            self.fired = True
            self._waiting.cancel()
            return
        start = self._started if self._waiting is not None else now
        self._handle = self._loop.call_at(start + self._timeout_s, self._check)


@asynccontextmanager
async def post_stream(url: str, headers: Mapping[str, str], body: Body, timeout_s: float) -> AsyncIterator[Response]:
    """POST `body` (JSON) to `url` with `headers` and yield the response once its head arrived.

    An error status raises `ProviderStatusError` (the body read for what it says); a JSON body where an
    event stream was asked for raises `NotAnEventStream`. The connection goes back to the pool when the
    response was read to its end, and is closed otherwise (an abort, an error)."""
    parts = urlsplit(url)
    origin = Origin.of(parts)
    proxy = proxy_for(origin)
    shown = _shown(parts)
    head = _head(parts, origin, proxy, headers, body_size(body))
    response = await _send((origin, proxy), shown, writes(head, body), timeout_s)
    try:
        if response.status >= 400:
            raise await _status_error(response)
        if response.headers.get("content-type", "").startswith("application/json"):
            raise NotAnEventStream(_json_instead(shown, await response.aread()))
        yield response
    finally:
        response.close()


async def close_clients() -> None:
    """Close the kept-alive connections of the running loop, e.g. when the server stops; until its next
    request, none is kept."""
    loop = asyncio.get_running_loop()
    _closed.add(loop)
    for connections in _pools.pop(loop, {}).values():
        for connection in connections:
            connection.close()


async def _send(key: _PoolKey, url: str, writes: list[bytes | memoryview], timeout_s: float) -> Response:
    loop = asyncio.get_running_loop()
    _closed.discard(loop)
    idle = _pools.get(loop, {}).get(key, [])
    connection = None
    while idle and connection is None:
        connection = idle.pop()
        if not connection.usable():
            connection.close()
            connection = None
    while True:
        if connection is None:
            connection = await _connect(key, url, timeout_s)
        try:
            async with asyncio.timeout(timeout_s):
                for data in writes:
                    connection.writer.write(data)
                await connection.writer.drain()
                status, headers = await _read_head(connection.reader)
            return Response(connection, key, url, status, headers, timeout_s)
        except TimeoutError:  # before OSError, which it is a kind of
            connection.close()
            message = f"the request to {url} timed out (no answer for {timeout_s:g} s)"
            raise ProviderConnectionError(message, url, timed_out=True) from None
        except (OSError, asyncio.IncompleteReadError) as exc:
            connection.close()
            if connection.used:  # a kept connection the server had closed: once more on a new one
                connection = None
                continue
            raise ProviderConnectionError(f"{url} closed the connection without answering: {_why(exc)}", url) from exc
        except (ValueError, asyncio.LimitOverrunError) as exc:
            connection.close()
            raise ProviderConnectionError(f"{url} did not answer in HTTP/1.1 ({exc})", url) from None
        except BaseException:
            connection.close()
            raise


async def _connect(key: _PoolKey, url: str, timeout_s: float) -> _Connection:
    origin, proxy = key
    try:
        return _Connection(*await open_stream(origin, proxy, timeout_s))
    except TimeoutError:  # before OSError, which it is a kind of
        message = f"cannot reach {url}: no connection within {timeout_s:g} s"
        raise ProviderConnectionError(message, url, timed_out=True) from None
    except OSError as exc:  # refused, unknown host, TLS (ssl.SSLError is an OSError), a proxy's refusal
        raise ProviderConnectionError(f"cannot reach {url}: {_why(exc)}", url) from exc


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    """The status and headers (names lower-cased; repeated ones joined), skipping 1xx interim answers."""
    while True:
        raw = await reader.readuntil(b"\r\n\r\n")
        lines = raw[:-4].decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        if not version.startswith("HTTP/1."):
            raise ValueError(f"status line {lines[0][:80]!r}")
        status = int(rest[:3])
        if status >= 200:
            break
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        name, value = name.strip().lower(), value.strip()
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    if version == "HTTP/1.0" and headers.get("connection", "").lower() != "keep-alive":
        headers["connection"] = "close"
    return status, headers


def _head(parts: SplitResult, origin: Origin, proxy: Proxy | None, headers: Mapping[str, str], length: int) -> bytes:
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    forwarded = proxy is not None and origin.scheme == "http"
    target = f"http://{origin.authority}{path}" if forwarded else path
    fields = {"host": origin.authority, "user-agent": USER_AGENT, "accept": "application/json"}
    fields["content-type"] = "application/json"
    if parts.username is not None:
        import base64
        from urllib.parse import unquote

        user_password = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        fields["authorization"] = "Basic " + base64.b64encode(user_password).decode("ascii")
    if forwarded and proxy is not None and proxy.authorization:
        fields["proxy-authorization"] = proxy.authorization
    fields.update((name.lower(), value) for name, value in headers.items())
    fields["content-length"] = str(length)
    lines = [f"POST {target} HTTP/1.1"]
    for name, value in fields.items():
        if "\r" in value or "\n" in value or "\r" in name or "\n" in name or ":" in name:
            raise ValueError(f"the header {name.splitlines()[0]!r} holds a line break or its name a colon")
        lines.append(f"{name}: {value}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")


async def _status_error(response: Response) -> ProviderStatusError:
    try:
        body = await response.aread()
    except ProviderConnectionError:
        body = b""
    error_type, message = _api_error(body)
    headers = response.headers
    return ProviderStatusError(
        response.status,
        message or _reason(response.status),
        error_type=error_type,
        retry_after=headers.get("retry-after"),
        request_id=headers.get("request-id") or headers.get("x-request-id"),
    )


def _api_error(body: bytes) -> tuple[str | None, str]:
    """The error's type and message from an Anthropic (`{"type": "error", "error": {...}}`) or OpenAI
    (`{"error": {...}}`) error body; else no type, and the body's text."""
    with contextlib.suppress(ValueError):
        data = json.loads(body)
        inner = data.get("error", data) if isinstance(data, dict) else None
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            kind = inner.get("type") or inner.get("code")
            return (str(kind) if kind else None), inner["message"]
        if isinstance(inner, str):
            return None, inner
    return None, body[:500].decode("utf-8", "replace").strip()


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "error"


def _json_instead(url: str, body: bytes) -> str:
    """What to tell a user whose server answered a streaming request with JSON."""
    _, message = _api_error(body)
    detail = message or body[:500].decode("utf-8", "replace").strip()
    return f"{url} answered with JSON instead of streaming its answer (does it support stream=true?): {detail}"


def _shown(parts: SplitResult) -> str:
    """The URL without user, password or query (either could hold a key)."""
    host = f"[{parts.hostname}]" if parts.hostname and ":" in parts.hostname else parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _why(exc: BaseException) -> str:
    """'Connection refused' rather than '[Errno 111] Connect call failed (...)'; a DNS failure's errno is
    negative and its strerror says it ('Name or service not known')."""
    import os

    ssl = sys.modules.get("ssl")
    if ssl is not None and isinstance(exc, ssl.SSLCertVerificationError):
        why = exc.verify_message or exc.reason
        return f"its TLS certificate was refused ({why}); a proxy's or a private CA's certificate goes in SSL_CERT_FILE"
    if ssl is not None and isinstance(exc, ssl.SSLError):
        return f"TLS: {exc.reason or exc}"  # its errno is an OpenSSL code, not the system's
    if isinstance(exc, OSError) and exc.errno:
        return os.strerror(exc.errno) if exc.errno > 0 else str(exc.strerror)
    if isinstance(exc, asyncio.IncompleteReadError):
        return "the connection closed before the answer's head"
    return str(exc) or type(exc).__name__


def _content_length(value: str, url: str) -> int:
    try:
        return int(value.split(",")[0])
    except ValueError:
        message = f"{url} did not answer in HTTP/1.1 (content-length {value[:40]!r})"
        raise ProviderConnectionError(message, url) from None
