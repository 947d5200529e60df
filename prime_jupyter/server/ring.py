"""`RingBuffer`: the last N frames of a session, numbered, for SSE replay (upstream.md §1.5).

Each frame is numbered (`seq`, from 1, never reused while the server runs) and encoded to JSON once,
when it is pushed; every stream that carries it reuses that text. A reconnecting client names the
last `seq` it saw: `since()` gives what followed, or None when that cursor can no longer be served
(it fell out of the ring, or it comes from an earlier server process and lies ahead of the ring),
and the client must refetch `chat/session`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from itertools import islice

from prime_jupyter.protocol.frames import ChatFrame
from prime_jupyter.protocol.wire import dump_json

__all__ = ["RingBuffer", "RingEntry", "unsequenced"]


@dataclass(frozen=True, slots=True)
class RingEntry:
    """A frame with its JSON; `seq` is None for frames that are not in the ring (`connected`, `error`)."""

    seq: int | None
    frame: ChatFrame
    json: str

    def ndjson(self) -> bytes:
        return (self.json + "\n").encode()

    def sse(self) -> bytes:
        head = f"id: {self.seq}\n" if self.seq is not None else ""
        return f"{head}data: {self.json}\n\n".encode()


def unsequenced(frame: ChatFrame) -> RingEntry:
    return RingEntry(None, frame, dump_json(frame))


class RingBuffer:
    def __init__(self, capacity: int = 500) -> None:
        self.capacity = max(1, capacity)
        self._entries: deque[RingEntry] = deque(maxlen=self.capacity)
        self.last_seq = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def first_seq(self) -> int:
        """The oldest retained sequence number (`last_seq + 1` when empty)."""
        return self.last_seq - len(self._entries) + 1

    def push(self, frame: ChatFrame) -> RingEntry:
        self.last_seq += 1
        entry = RingEntry(self.last_seq, frame, dump_json(frame))
        self._entries.append(entry)
        return entry

    def since(self, cursor: int) -> list[RingEntry] | None:
        """The entries after `cursor`; None when the ring cannot say what followed it."""
        if cursor > self.last_seq or cursor < self.first_seq - 1:
            return None
        return list(islice(self._entries, cursor - self.first_seq + 1, None))
