"""`Throttle`: call a function on the event loop at most once per interval while something new arrives.

Streamed command output (the `bash` tool's updates, the user's `!cmd` chunks) comes in pieces of any size,
often many a millisecond; front ends want a few redraws a second, not one per read.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

__all__ = ["Throttle"]


class Throttle:
    """`poke()` after new data: `emit` runs at most once per `interval`, the first time right away."""

    def __init__(self, emit: Callable[[], None], interval: float) -> None:
        self._emit = emit
        self._interval = interval
        self._last = float("-inf")
        self._pending: asyncio.TimerHandle | None = None
        self._loop = asyncio.get_running_loop()

    def poke(self) -> None:
        if self._pending is None:
            delay = max(0.0, self._last + self._interval - time.monotonic())
            self._pending = self._loop.call_later(delay, self._fire)

    def close(self) -> None:
        """Send what is still pending now, and stop."""
        if self._pending is not None:
            self._pending.cancel()
            self._fire()

    def _fire(self) -> None:
        self._pending = None
        self._last = time.monotonic()
        self._emit()
