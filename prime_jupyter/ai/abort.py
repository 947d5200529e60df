"""Cooperative cancellation shared by providers, the loop and tools.

An `AbortSignal` is set once, never cleared. Providers close their HTTP stream when it fires; tools
race their work against it with `race()`, which cancels the work and raises `AbortedError`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["AbortController", "AbortSignal", "AbortedError"]

T = TypeVar("T")


class AbortedError(Exception):
    """Raised by `AbortSignal.race` when the signal fired first. Internal control flow, never shown."""


class AbortSignal:
    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._callbacks: list[Callable[[], None]] = []
        self.reason: str | None = None

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def add_callback(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` when the signal fires (now, if it already has); returns an unsubscribe."""
        if self.aborted:
            callback()
            return lambda: None
        self._callbacks.append(callback)

        def _remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return _remove

    async def wait(self) -> None:
        await self._event.wait()

    async def race(self, work: Awaitable[T]) -> T:
        """Await `work` unless the signal fires first; then cancel it and raise `AbortedError`."""
        if self.aborted:
            if isinstance(work, asyncio.Future | asyncio.Task):
                work.cancel()
            elif asyncio.iscoroutine(work):
                work.close()
            raise AbortedError(self.reason or "aborted")
        task = asyncio.ensure_future(work)
        waiter = asyncio.ensure_future(self._event.wait())
        try:
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            waiter.cancel()
        if task.done():
            return task.result()
        task.cancel()
        try:
            await task
        except BaseException:
            pass
        raise AbortedError(self.reason or "aborted")

    def _fire(self, reason: str) -> None:
        if self.aborted:
            return
        self.reason = reason
        self._event.set()
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()


class AbortController:
    """Owns a signal; `abort()` fires it once."""

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: str = "aborted") -> None:
        self.signal._fire(reason)
