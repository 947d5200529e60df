"""`EventLog`: the session events of one live session, numbered and encoded once, for the connection routes.

The chat routes number chat frames (`host.ring`); `HttpAgentConnection` wants the session events
themselves (vocabulary (a), design.md D9), so each live session that a connection client attached to
gets an event log too: it subscribes to the session's `InProcessAgentConnection`, encodes every event
once (`codec.event_to_json`) into an SSE message with `id: <seq>`, keeps the last `capacity` of them
for replay, and hands each to the open event streams.

Sequence numbers start at the microsecond clock when the log is made, so the numbers of a later log of
the same session (the server restarted, the session was closed and opened again) lie above every
number an earlier log handed out: an old cursor is always behind the new log's range and gets
`resync-required`, never a replay of the wrong events. (This keeps the cursor a plain integer, as in
`AttachSnapshot.cursor`, without a separate generation.)

The log also keeps the assistant message being streamed, so an attach in the middle of an answer
gets it as `streamingMessage` and the deltas that follow apply to it.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice

from prime_jupyter.ai.types import AssistantMessage
from prime_jupyter.connection.types import ConnectionEvent, SessionEventReceived
from prime_jupyter.protocol.codec import event_to_json
from prime_jupyter.protocol.events import AgentEnd, MessageEnd, MessageStart, MessageUpdate, SessionEvent
from prime_jupyter.protocol.paths import SESSION_EVENT_PREFIX
from prime_jupyter.protocol.snapshot import AttachSnapshot
from prime_jupyter.runtime.views import snapshot
from prime_jupyter.server.host.live import LiveSession
from prime_jupyter.server.host.ring import RingEntry

__all__ = ["ConnectionHub", "EventLog", "LogEntry", "LogListener"]


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One SSE message, ready to write; `seq` is None for messages outside the log (`connected`)."""

    seq: int | None
    sse: bytes


LogListener = Callable[[LogEntry | None], None]
"""Gets every entry as it is logged, and None when the session closes."""


def _session_event_sse(seq: int, event: SessionEvent) -> bytes:
    return f"id: {seq}\ndata: {SESSION_EVENT_PREFIX}{event_to_json(event)}}}\n\n".encode()


class EventLog:
    def __init__(self, live: LiveSession, capacity: int, on_close: Callable[[EventLog], None] | None = None) -> None:
        self.live = live
        self._on_close = on_close
        self.capacity = max(1, capacity)
        self.last_seq = time.time_ns() // 1000
        self.closed = False
        self._entries: deque[bytes] = deque(maxlen=self.capacity)  # bytes only: no work for the GC
        self._streaming: AssistantMessage | None = None
        self._listeners: dict[int, LogListener] = {}
        self._next_listener = 0
        self._stops = [live.connection.subscribe(self._on_event), live.listen(self._on_frame)]
        if live.closed:  # deleted while the request that wants this log was on its way
            self.close()

    @property
    def first_seq(self) -> int:
        """The oldest retained sequence number (`last_seq + 1` when empty)."""
        return self.last_seq - len(self._entries) + 1

    def since(self, cursor: int) -> list[LogEntry] | None:
        """The entries after `cursor`; None when the log cannot say what followed it."""
        if cursor > self.last_seq or cursor < self.first_seq - 1:
            return None
        skip = cursor - self.first_seq + 1
        return [LogEntry(cursor + i, sse) for i, sse in enumerate(islice(self._entries, skip, None), 1)]

    def snapshot(self) -> AttachSnapshot:
        """The session as of `last_seq`: follow the stream from that cursor and nothing is missed."""
        streaming = self._streaming.model_copy(deep=True) if self._streaming is not None else None
        return snapshot(self.live.session, cursor=self.last_seq).model_copy(update={"streaming_message": streaming})

    def listen(self, listener: LogListener) -> Callable[[], None]:
        key = self._next_listener
        self._next_listener += 1
        self._listeners[key] = listener
        return lambda: self._listeners.pop(key, None) and None

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for stop in self._stops:
            stop()
        if self._on_close is not None:
            self._on_close(self)
        for listener in tuple(self._listeners.values()):
            listener(None)
        self._listeners.clear()

    def _on_event(self, event: ConnectionEvent) -> None:
        if isinstance(event, SessionEventReceived):
            self._track(event.event)
            self.last_seq += 1
            entry = LogEntry(self.last_seq, _session_event_sse(self.last_seq, event.event))
            self._entries.append(entry.sse)
            for listener in tuple(self._listeners.values()):
                listener(entry)

    def _track(self, event: SessionEvent) -> None:
        if isinstance(event, MessageStart) and isinstance(event.message, AssistantMessage):
            self._streaming = event.message
        elif isinstance(event, MessageUpdate):
            self._streaming = event.message
        elif isinstance(event, MessageEnd | AgentEnd):
            self._streaming = None

    def _on_frame(self, entry: RingEntry | None) -> None:
        if entry is None:  # the live session closed (deleted, server stopping)
            self.close()


class ConnectionHub:
    """The event logs of this server's live sessions, made on first use by a connection route."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._logs: dict[str, EventLog] = {}

    def log_for(self, live: LiveSession) -> EventLog:
        log = self._logs.get(live.session_id)
        if log is None or log.closed or log.live is not live:
            if log is not None:
                log.close()
            log = self._logs[live.session_id] = EventLog(live, self.capacity, self._forget)
        return log

    def _forget(self, log: EventLog) -> None:
        if self._logs.get(log.live.session_id) is log:
            del self._logs[log.live.session_id]
