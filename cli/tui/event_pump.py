"""The connection's events, in order, into the chat: one drain loop that folds a burst, then draws once.

The connection's listener puts events into the pump's queue (`put`, safe from any callback); `drain` folds
the session events that came since the last pass (`fold`, given them together, up to `FOLD_AT_ONCE` at a
time: the fold coalesces consecutive deltas), hands the others to `handle` in order with them (and the
session events `apart` picks out: those the fold does not hold, such as a `!cmd`'s output), then draws
(`draw`) and lets the loop take keys before it goes on.

A snapshot the chat draws already holds the events up to its cursor, and some of those may still be on
their way (over HTTP the stream follows from the connection's own attach, which came before the chat's
snapshot: a `!cmd`'s chunk was shown twice; in process the session's thread may emit between the chat's
subscription and its snapshot). The pump drops an event whose place in the log it knows
and the snapshot holds (`skip_through`; a replaced session's snapshot moves the mark, in order).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence

from prime_jupyter.connection.types import ConnectionEvent, SessionEventReceived, SessionReplaced
from prime_jupyter.protocol.events import SessionEvent

__all__ = ["FOLD_AT_ONCE", "FOLD_BUDGET_S", "EventPump"]

FOLD_BUDGET_S = 0.004
"""Folding a burst of thousands of streamed deltas in one pass held the loop for 100-400 ms (asyncio's
debug mode, during `benchmarks/bench_tui.py`'s 20,000-delta answer): a pass folds for at most this long,
then draws and lets keys in."""
FOLD_AT_ONCE = 256
"""Session events given to `fold` together (at most; fewer when the queue runs dry or a connection event
comes between): a burst of deltas folds at once, and the budget is checked between such slices."""


class EventPump:
    """A queue of connection events and the loop that drains it."""

    def __init__(
        self,
        fold: Callable[[Sequence[SessionEvent]], None],
        handle: Callable[[ConnectionEvent], Awaitable[None]],
        draw: Callable[[], Awaitable[None]],
        apart: Callable[[SessionEvent], bool] = lambda event: False,
    ) -> None:
        self._fold = fold
        self._apart = apart
        self._handle = handle
        self._draw = draw
        self._events: asyncio.Queue[ConnectionEvent] = asyncio.Queue()
        self._through = -1
        """The cursor of the snapshot drawn: events up to it are in it."""

    def put(self, event: ConnectionEvent) -> None:
        """Queue `event` (the connection's listener; also the app's own events, in order with them)."""
        self._events.put_nowait(event)

    def skip_through(self, cursor: int) -> None:
        """The chat drew a snapshot as of `cursor`: the session events up to it are not folded again."""
        self._through = cursor

    async def drain(self) -> None:
        """Fold the events that came since the last pass, then draw once; a pass folds for at most
        `FOLD_BUDGET_S`, then draws and lets the loop take keys before it goes on. Runs until cancelled."""
        events = self._events
        while True:
            item = await events.get()
            deadline = time.monotonic() + FOLD_BUDGET_S
            batch: list[SessionEvent] = []
            while True:
                if isinstance(item, SessionEventReceived) and item.seq is not None and item.seq <= self._through:
                    pass  # the snapshot drawn holds it
                elif isinstance(item, SessionEventReceived) and not self._apart(item.event):
                    batch.append(item.event)
                else:
                    if isinstance(item, SessionReplaced):
                        self._through = item.snapshot.cursor
                    batch = self._fold_all(batch)
                    await self._handle(item)
                if len(batch) >= FOLD_AT_ONCE:
                    batch = self._fold_all(batch)
                if events.empty() or time.monotonic() > deadline:
                    break
                item = events.get_nowait()
            self._fold_all(batch)
            await self._draw()
            if not events.empty():
                await asyncio.sleep(0)

    def _fold_all(self, batch: list[SessionEvent]) -> list[SessionEvent]:
        """Fold `batch` (if any); an empty batch to go on with."""
        if batch:
            self._fold(batch)
        return []
