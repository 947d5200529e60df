"""The connection's events, in order, into the chat: one drain loop that folds a burst, then draws once.

The connection's listener puts events into the pump's queue (`put`, safe from any callback); `drain` folds
the session events that came since the last pass (`fold`), hands the others to `handle` in order with
them, then draws (`draw`) and lets the loop take keys before it goes on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from prime_jupyter.connection.types import ConnectionEvent, SessionEventReceived
from prime_jupyter.protocol.events import SessionEvent

__all__ = ["FOLD_BUDGET_S", "EventPump"]

FOLD_BUDGET_S = 0.01
"""Folding a burst of thousands of streamed deltas in one pass held the loop for 100-400 ms (asyncio's
debug mode, during `benchmarks/bench_tui.py`'s 20,000-delta answer): a pass folds for at most this long,
then draws and lets keys in."""


class EventPump:
    """A queue of connection events and the loop that drains it."""

    def __init__(
        self,
        fold: Callable[[SessionEvent], None],
        handle: Callable[[ConnectionEvent], Awaitable[None]],
        draw: Callable[[], Awaitable[None]],
    ) -> None:
        self._fold = fold
        self._handle = handle
        self._draw = draw
        self._events: asyncio.Queue[ConnectionEvent] = asyncio.Queue()

    def put(self, event: ConnectionEvent) -> None:
        """Queue `event` (the connection's listener; also the app's own events, in order with them)."""
        self._events.put_nowait(event)

    async def drain(self) -> None:
        """Fold the events that came since the last pass, then draw once; a pass folds for at most
        `FOLD_BUDGET_S`, then draws and lets the loop take keys before it goes on. Runs until cancelled."""
        while True:
            item = await self._events.get()
            deadline = time.monotonic() + FOLD_BUDGET_S
            while True:
                if isinstance(item, SessionEventReceived):
                    self._fold(item.event)
                else:
                    await self._handle(item)
                if self._events.empty() or time.monotonic() > deadline:
                    break
                item = self._events.get_nowait()
            await self._draw()
            if not self._events.empty():
                await asyncio.sleep(0)
