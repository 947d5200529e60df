"""`Feed`: the frames waiting to be written to one client, in order.

A session's listeners run inside its event fan-out and must not block, so each stream gets a feed:
the listener appends, the stream's writer takes everything waiting in one batch (one write and one
flush for all frames that arrived while the previous flush was in progress: no frame waits for a
later one). A feed with a `limit` drops what is waiting when its client falls that far behind and
puts `overflow()` in its place (SSE: `resync-required`, so the client refetches instead of the
server buffering without bound).

A writer may also take frames directly (`direct()`): while nothing is waiting, `put` hands the frame
to it at once, in the listener's own call, instead of waking the writer's task for it. Under load that
saves a pass of the event loop per frame, which is where a frame's latency goes when twenty sessions
stream at once. When the direct writer cannot take a frame (its previous write is still going) the
frame waits in the feed as usual, so order is kept.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Feed"]

T = TypeVar("T")


class Feed(Generic[T]):
    def __init__(self, limit: int | None = None, overflow: Callable[[], T] | None = None) -> None:
        self._items: deque[T] = deque()
        self._wake = asyncio.Event()
        self._limit = limit
        self._overflow = overflow
        self._direct: Callable[[T], bool] | None = None
        self.closed = False

    def direct(self, take: Callable[[T], bool] | None) -> None:
        """Hand frames to `take` while nothing waits; it returns False when it cannot take one now."""
        self._direct = take

    def put(self, entry: T) -> None:
        if self.closed:
            return
        if self._limit is not None and len(self._items) >= self._limit and self._overflow is not None:
            self._items.clear()
            self._items.append(self._overflow())
        if not self._items and self._direct is not None and self._direct(entry):
            return
        self._items.append(entry)
        self._wake.set()

    def close(self) -> None:
        """No more frames: the writer drains what is waiting, then stops."""
        self.closed = True
        self._wake.set()

    async def next_batch(self, idle_s: float | None = None) -> list[T] | None:
        """Everything waiting (at least one frame); `[]` when `idle_s` passed with nothing new; None
        once the feed is closed and drained."""
        if not self._items and not self.closed:
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), idle_s)
            except TimeoutError:
                return []
        if not self._items:
            return None
        batch = list(self._items)
        self._items.clear()
        return batch
