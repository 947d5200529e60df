"""`RingBuffer`: the last N frames of a session, numbered, for SSE replay (upstream.md §1.5).

Each frame is numbered (`seq`) and encoded to JSON once, when it is pushed; every stream that carries
it reuses that text. A reconnecting client names the last `seq` it saw: `since()` gives what followed,
or None when that cursor can no longer be served (it fell out of the ring, or it comes from another
server process), and the client must refetch `chat/session`.

Numbers are not reused across server processes. A ring starts numbering after the microsecond clock of
its creation (as `attach.event_log.EventLog` does), and never below a number another ring of this process
handed out, so every number a ring of an earlier process gave (the server restarted and reopened the
session) lies below the new ring's range, and an old `Last-Event-ID` gets `resync-required` instead of
a replay from the wrong place. The numbers stay plain integers below 2**53 (until the year 2255), exact
in JSON and JavaScript. Cursor 0 means "nothing seen yet": everything since the ring's start, while the
ring still holds it (the panel follows a session it just made from 0).
"""

from __future__ import annotations

import time
import weakref
from collections import deque
from dataclasses import dataclass
from itertools import islice

from prime_jupyter.protocol.frames import ChatFrame
from prime_jupyter.protocol.wire import dump_json

__all__ = ["RingBuffer", "RingEntry", "unsequenced"]


@dataclass(frozen=True, slots=True)
class RingEntry:
    """A frame with its JSON; `seq` is None for frames that are not in the ring (`connected`, `error`).
    `frame` is None in a replay: the ring keeps only the JSON of what it holds."""

    seq: int | None
    frame: ChatFrame | None
    json: str
    retry_ms: int | None = None
    """Sent as SSE `retry:`: how long a browser's EventSource waits before it reconnects."""

    def ndjson(self) -> bytes:
        return (self.json + "\n").encode()

    def sse(self) -> bytes:
        head = f"id: {self.seq}\n" if self.seq is not None else ""
        retry = f"retry: {self.retry_ms}\n" if self.retry_ms is not None else ""
        return f"{retry}{head}data: {self.json}\n\n".encode()


def unsequenced(frame: ChatFrame) -> RingEntry:
    return RingEntry(None, frame, dump_json(frame))


class RingBuffer:
    def __init__(self, capacity: int = 500) -> None:
        self.capacity = max(1, capacity)
        self._entries: deque[str] = deque(maxlen=self.capacity)
        """The JSON of each frame only: strings are invisible to the garbage collector, so thousands of
        retained frames across sessions add nothing to its full passes (`prime_jupyter/gc_policy.py`)."""
        self.start = _NUMBERING.start(self)
        """The number before this ring's first frame (what cursor 0 stands for)."""
        self.last_seq = self.start

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def first_seq(self) -> int:
        """The oldest retained sequence number (`last_seq + 1` when empty)."""
        return self.last_seq - len(self._entries) + 1

    def push(self, frame: ChatFrame) -> RingEntry:
        self.last_seq += 1
        entry = RingEntry(self.last_seq, frame, dump_json(frame))
        self._entries.append(entry.json)
        return entry

    def since(self, cursor: int) -> list[RingEntry] | None:
        """The entries after `cursor` (0: after `start`); None when the ring cannot say what followed it."""
        after = self.start if cursor == 0 else cursor
        if after > self.last_seq or after < self.first_seq - 1:
            return None
        skip = after - self.first_seq + 1
        return [RingEntry(after + i, None, text) for i, text in enumerate(islice(self._entries, skip, None), 1)]


class _Numbering:
    """Where each new ring starts: the microsecond clock, and never below what a live ring has used."""

    def __init__(self) -> None:
        self._rings: weakref.WeakSet[RingBuffer] = weakref.WeakSet()

    def start(self, ring: RingBuffer) -> int:
        used = max((other.last_seq for other in self._rings), default=0)
        self._rings.add(ring)
        return max(time.time_ns() // 1000, used)


_NUMBERING = _Numbering()
