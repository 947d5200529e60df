"""Writing NDJSON and SSE streams from Tornado handlers.

Each batch a `Feed` hands over is written and flushed at once (frames are never held back waiting for
more). A client that goes away shows up as `StreamClosedError` on write or flush, or as the handler's
`on_connection_close`; either way the stream just ends: nothing is logged as a crash, and the session
keeps running (design.md: sessions outlive their clients).
"""

from __future__ import annotations

from tornado.iostream import IOStream, StreamClosedError
from tornado.web import RequestHandler

from prime_jupyter.protocol.framing import SSE_HEARTBEAT
from prime_jupyter.server.feeds import Feed
from prime_jupyter.server.ring import RingEntry

__all__ = ["NDJSON", "SSE", "begin_stream", "end_stream", "pump_ndjson", "pump_sse"]

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


async def _write(handler: RequestHandler, data: bytes) -> bool:
    """Write and flush; False when the client has gone."""
    try:
        handler.write(data)
        await handler.flush()
    except StreamClosedError:
        return False
    return True


async def pump_ndjson(handler: RequestHandler, feed: Feed[RingEntry]) -> bool:
    """Write the feed as NDJSON lines until it closes; False when the client went away first."""
    while (batch := await feed.next_batch()) is not None:
        if not await _write(handler, b"".join(entry.ndjson() for entry in batch)):
            return False
    return True


async def pump_sse(handler: RequestHandler, feed: Feed[RingEntry], heartbeat_s: float) -> bool:
    """Write the feed as SSE messages, with a heartbeat comment when nothing happened for `heartbeat_s`."""
    while (batch := await feed.next_batch(heartbeat_s)) is not None:
        data = b"".join(entry.sse() for entry in batch) if batch else SSE_HEARTBEAT
        if not await _write(handler, data):
            return False
    return True


def end_stream(handler: RequestHandler, content_type: str) -> None:
    """Finish the response, whether or not the client is still there."""
    try:
        handler.finish(set_content_type=content_type)  # type: ignore[call-arg]  # jupyter's APIHandler.finish
    except StreamClosedError:
        pass
