"""The SSE streams of `GET connection/events` (`connected`, the replay after a cursor, then live events)
and of `POST connection/run` (`run_started`, the run's events, `run_ended` once the session is idle).

Each stream gets an `Outbox`: the event log's listener appends (it must not block), the writer takes
everything waiting in one batch and flushes it at once. A cursor the log cannot serve (it fell out of
the log, or comes from an earlier log) and a client that falls `capacity` entries behind both get
`resync-required` and the stream ends: the client attaches again for a fresh snapshot and follows a
new stream from its cursor. A client that goes away just ends the stream; the session keeps running.
"""

from __future__ import annotations

from tornado.web import RequestHandler

from prime_jupyter.protocol.connection_routes import RunEndedMessage, RunStartedMessage
from prime_jupyter.protocol.frames import ConnectedFrame, ResyncRequiredFrame
from prime_jupyter.protocol.framing import SSE_HEARTBEAT, encode_sse
from prime_jupyter.protocol.version import CAPABILITIES, PROTOCOL_VERSION, SCHEMA_REVISION
from prime_jupyter.server.attach.event_log import EventLog, LogEntry
from prime_jupyter.server.host.live import LiveSession
from prime_jupyter.server.http.feeds import Feed
from prime_jupyter.server.http.streaming import ClientWriter

__all__ = ["Outbox", "end_with_run", "open_outbox", "open_run_outbox", "pump"]

_RESYNC = LogEntry(None, encode_sse(ResyncRequiredFrame(reason="cursor-expired")))


class Outbox(Feed[LogEntry]):
    """A `Feed` of log entries whose overflow ends the stream with `resync-required`."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)

    def put(self, entry: LogEntry | None) -> None:
        """Queue an entry; None (the session closed) ends the stream once the rest is written."""
        if self.closed:
            return
        if entry is None:
            return self.close()
        if self._limit is not None and len(self._items) >= self._limit:
            self._items.clear()
            return self.resync()
        super().put(entry)

    def resync(self) -> None:
        """Send `resync-required` after what is waiting, then end the stream."""
        self._items.append(_RESYNC)
        self.close()


def open_outbox(log: EventLog, cursor: int | None) -> Outbox:
    """An outbox holding `connected` and the replay after `cursor` (nothing without a cursor)."""
    outbox = Outbox(log.capacity)
    connected = ConnectedFrame(
        session_id=log.live.session_id,
        protocol_version=PROTOCOL_VERSION,
        schema_revision=SCHEMA_REVISION,
        capabilities=list(CAPABILITIES),
        cursor=log.last_seq,
    )
    outbox.put(LogEntry(None, encode_sse(connected)))
    replay = log.since(cursor) if cursor is not None else []
    if replay is None:
        outbox.resync()
    for entry in replay or []:
        outbox.put(entry)
    if log.closed:  # the session closed meanwhile: end the stream (the client finds out why on reconnect)
        outbox.close()
    return outbox


def open_run_outbox(log: EventLog, started: RunStartedMessage) -> Outbox:
    """An outbox holding `started` and the events logged since its cursor (the run's first ones)."""
    outbox = Outbox(log.capacity)
    outbox.put(LogEntry(None, encode_sse(started)))
    for entry in log.since(started.cursor) or []:
        outbox.put(entry)
    if log.closed:
        outbox.close()
    return outbox


async def end_with_run(live: LiveSession, log: EventLog, outbox: Outbox) -> None:
    """Once the session is idle, `run_ended` after the run's last event, and the end of the stream."""
    await live.connection.wait_for_idle()
    outbox.put(LogEntry(None, encode_sse(RunEndedMessage(cursor=log.last_seq))))
    outbox.close()


async def pump(handler: RequestHandler, outbox: Outbox, heartbeat_s: float) -> None:
    """Write the outbox until it closes or the client goes away, a heartbeat comment when idle."""
    writer = ClientWriter(handler, outbox)
    while (batch := await outbox.next_batch(heartbeat_s)) is not None:
        if not await writer.write(b"".join(entry.sse for entry in batch) if batch else SSE_HEARTBEAT):
            return
    await writer.settle()
