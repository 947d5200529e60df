"""Writing NDJSON and SSE streams from Tornado handlers.

A frame is written and flushed as soon as it is put into the stream's `Feed` (directly, in the
listener's call, when the previous flush is done), or with what else waits in one batch when the
socket was busy (frames are never held back waiting for more). A client that goes away shows up as
`StreamClosedError` on write or flush, or as the handler's `on_connection_close`; either way the stream
just ends: nothing is logged as a crash, and the session keeps running (design.md: sessions outlive
their clients).

Once the headers are out, a frame of a chunked response skips `RequestHandler.write`/`flush` and
`HTTP1Connection.write`: it is framed as one HTTP chunk here and sent on the socket at once when
nothing waits in the stream's buffer, else queued on the `IOStream` (which keeps the order). Those
layers cost three futures and a loop callback per frame: skipping them cut the server's CPU time per
streamed delta by a fifth to a third with 20 sessions streaming (`benchmarks/bench_server.py`). A
response they would transform (`compress_response`) or an HTTP/1.0 client takes the ordinary path;
on TLS the chunk always goes through the `IOStream`, which does the encryption.
"""

from __future__ import annotations

import asyncio
import time
from asyncio import Future
from collections.abc import Callable
from typing import Any

from tornado.http1connection import HTTP1Connection
from tornado.iostream import IOStream, StreamClosedError
from tornado.web import RequestHandler

from prime_jupyter.protocol.framing import SSE_HEARTBEAT
from prime_jupyter.server.host.ring import RingEntry
from prime_jupyter.server.http.feeds import Feed

__all__ = ["NDJSON", "SSE", "ClientWriter", "begin_stream", "end_stream", "pump_ndjson", "pump_sse"]

NDJSON = "application/x-ndjson; charset=utf-8"
SSE = "text/event-stream; charset=utf-8"


def begin_stream(handler: RequestHandler, content_type: str) -> None:
    """Headers of a stream, and no Nagle delay: frames are small and must leave as soon as written."""
    handler.set_header("Content-Type", content_type)
    handler.set_header("Cache-Control", "no-cache, no-store")
    handler.set_header("X-Accel-Buffering", "no")
    connection = handler.request.connection
    stream = getattr(connection, "stream", None)
    if isinstance(stream, IOStream):
        stream.set_nodelay(True)


class ClientWriter:
    """Writes to one client: at once for a frame the feed hands over directly, or a batch from the pump.
    It knows the flush in flight (a direct write waits in the feed while one is going, to keep order)
    and whether the client has gone (then the feed is closed, which ends the pump)."""

    def __init__(self, handler: RequestHandler, feed: Feed[Any]) -> None:
        self._handler = handler
        self._feed = feed
        self._flush: Future[None] | None = None
        self._chunks: IOStream | None = None
        """The socket's stream once the headers are out, if frames can go to it as HTTP chunks."""
        self._headers_sent = False
        self.gone = False
        self.last_write = time.monotonic()

    def write_now(self, data: bytes) -> bool:
        """Write and start the flush; False when the previous flush is still going."""
        if self._flush is not None and not self._flush.done():
            return False
        if self.gone:
            return True  # nobody to write to: the frame is dropped, the pump is ending
        try:
            flush = self._send(data)
        except (StreamClosedError, OSError):
            self._went()
            return True
        self.last_write = time.monotonic()
        if flush is None or flush.done():  # the socket took it all at once (the common case): no callback
            self._flush = None
            if flush is not None:
                self._flushed(flush)
        else:
            self._flush = flush
            flush.add_done_callback(self._flushed)
        return True

    def _send(self, data: bytes) -> Future[None] | None:
        """Write `data` as one chunk; None when the socket took all of it at once."""
        stream = self._chunks
        if stream is None:
            self._handler.write(data)
            flush = self._handler.flush()
            if not self._headers_sent:
                self._headers_sent = True
                self._chunks = _chunk_stream(self._handler)
            return flush
        if stream.closed():  # its socket is gone too
            raise StreamClosedError()
        if not data:
            return None  # an empty chunk would end the response
        framed = b"%x\r\n%b\r\n" % (len(data), data)
        if not stream.writing() and type(stream) is IOStream:
            try:
                sent = stream.socket.send(framed)
            except BlockingIOError:
                sent = 0
            except OSError:
                stream.close()  # a reset or broken pipe: the handler hears of it as a closed connection
                raise
            if sent == len(framed):
                return None
            return stream.write(memoryview(framed)[sent:])
        return stream.write(framed)

    async def write(self, data: bytes) -> bool:
        """Write after the flush in flight, and wait for this one; False when the client has gone."""
        if not await self.settle():
            return False
        self.write_now(data)
        return await self.settle()

    async def settle(self) -> bool:
        """Wait for the flush in flight; False when the client has gone."""
        if self._flush is not None and not self._flush.done():
            await asyncio.wait([self._flush])
        return not self.gone

    def _flushed(self, flush: Future[None]) -> None:
        if flush.cancelled() or flush.exception() is not None:
            self._went()

    def _went(self) -> None:
        self.gone = True
        self._feed.close()


def _chunk_stream(handler: RequestHandler) -> IOStream | None:
    """The stream under `handler` if its response is chunked and not transformed, else None."""
    connection = handler.request.connection
    if not isinstance(connection, HTTP1Connection) or handler.application.transforms:
        return None
    stream = connection.stream
    chunked = getattr(connection, "_chunking_output", False) is True  # tornado decided it with the headers
    return stream if chunked and isinstance(stream, IOStream) and not stream.closed() else None


async def _pump(
    handler: RequestHandler,
    feed: Feed[RingEntry],
    encode: Callable[[RingEntry], bytes],
    heartbeat_s: float | None = None,
) -> bool:
    writer = ClientWriter(handler, feed)
    feed.direct(lambda entry: writer.write_now(encode(entry)))
    try:
        while (batch := await feed.next_batch(heartbeat_s)) is not None:
            if batch:
                data = b"".join(encode(entry) for entry in batch)
            elif heartbeat_s is not None and time.monotonic() - writer.last_write >= heartbeat_s:
                data = SSE_HEARTBEAT
            else:
                continue  # frames went out directly meanwhile: no heartbeat needed
            if not await writer.write(data):
                return False
        return await writer.settle()
    finally:
        feed.direct(None)


async def pump_ndjson(handler: RequestHandler, feed: Feed[RingEntry]) -> bool:
    """Write the feed as NDJSON lines until it closes; False when the client went away first."""
    return await _pump(handler, feed, RingEntry.ndjson)


async def pump_sse(handler: RequestHandler, feed: Feed[RingEntry], heartbeat_s: float) -> bool:
    """Write the feed as SSE messages, with a heartbeat comment when nothing was written for `heartbeat_s`."""
    return await _pump(handler, feed, RingEntry.sse, heartbeat_s)


def end_stream(handler: RequestHandler, content_type: str) -> None:
    """Finish the response, whether or not the client is still there."""
    try:
        handler.finish(set_content_type=content_type)  # type: ignore[call-arg]  # jupyter's APIHandler.finish
    except StreamClosedError:
        pass
