"""The in-process session on an event loop of its own, in a thread, so that it never holds up the app's.

In process, the session streams on the loop that runs it: the provider's stream reads what the socket
holds and folds every event in it before it yields (30-80 ms at a time with a 20,000-delta answer), and
the agent, the session and the connection run their callbacks for each. On the app's loop, each of the
four or five hops a key takes from the terminal to the screen (driver, app, screen, editor, the next
frame) waited behind such a turn, so keys took 100-220 ms to show while the answer streamed, and the
loop's longest block was the provider's (`benchmarks/bench_tui.py`). On a loop of its own the session
still shares the GIL with the app, but the interpreter hands the GIL over every 5 ms, and the session's
thread backs off while the app is behind on its events (`_BACKLOG`). Measured at load 2-4 on the two
shared cores: the app's longest block 70-102 -> 17-25 ms, key p99 while streaming 202-255 -> 53-61 ms.

`RuntimeThread` runs the loop; `ThreadedConnection` is the `AgentConnection` the app talks to: every
coroutine method runs on the session's loop (awaited from the app's); events reach the app's listeners
on the app's loop, a burst of them in one callback; the few plain methods (the extensions' command
list and completions) are called where they are, as they only read.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.types import ConnectionEvent, ConnectionListener

__all__ = ["RuntimeThread", "ThreadedConnection", "on_thread"]

T = TypeVar("T")

_BACKLOG = 256
_BACK_OFF_S = 0.002
"""While more than `_BACKLOG` events wait for the app's loop to take them, the session's thread sleeps
this long after each further one: the app is busy (drawing, folding), and sharing the GIL with the
session, every piece of its work took twice as long, keys included. Sleeping, the thread gives the GIL
up until the app has caught up (the provider's socket holds what streams meanwhile)."""


class RuntimeThread:
    """A daemon thread running an event loop of its own until `stop()`."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="prime-session", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            self.loop.close()

    async def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run `coroutine` on the thread's loop; its result, awaited from the caller's loop. Cancelling
        the caller cancels it there."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, self.loop))

    def call_soon(self, callback: Callable[[], object]) -> None:
        """Call `callback` on the thread's loop (from any thread)."""
        self.loop.call_soon_threadsafe(callback)

    def stop(self) -> None:
        """Stop the loop (what runs on it should be disposed of first) and wait for the thread."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)


class ThreadedConnection:
    """An `AgentConnection` living on a `RuntimeThread`, used from the app's loop (see the module's doc)."""

    def __init__(
        self, connection: AgentConnection, runtime: RuntimeThread, app_loop: asyncio.AbstractEventLoop
    ) -> None:
        self._connection = connection
        self._runtime = runtime
        self._app_loop = app_loop

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._connection, name)
        if not inspect.iscoroutinefunction(attribute):
            return attribute
        runtime = self._runtime

        async def on_session_loop(*args: Any, **kwargs: Any) -> Any:
            return await runtime.run(attribute(*args, **kwargs))

        return on_session_loop

    def subscribe(self, listener: ConnectionListener) -> Callable[[], None]:
        """`listener` hears the connection's events on the app's loop, in order; those that came while the
        app's loop was busy are handed over in one callback."""
        pending: list[ConnectionEvent] = []
        lock = threading.Lock()

        def hand_over() -> None:
            with lock:
                events = pending[:]
                pending.clear()
            for event in events:
                listener(event)

        def forward(event: ConnectionEvent) -> None:  # on the session's loop
            with lock:
                pending.append(event)
                waiting = len(pending)
            if waiting == 1:
                self._app_loop.call_soon_threadsafe(hand_over)
            elif waiting > _BACKLOG:
                time.sleep(_BACK_OFF_S)  # the app is behind: let it have the GIL

        return self._connection.subscribe(forward)

    async def dispose(self) -> None:
        """Dispose of the connection on the session's loop, then stop that loop."""
        try:
            await self._runtime.run(self._connection.dispose())
        finally:
            self._runtime.stop()


def on_thread(connection: AgentConnection, runtime: RuntimeThread) -> AgentConnection:
    """`connection` (opened on `runtime`'s loop) as the app's loop uses it."""
    threaded: Any = ThreadedConnection(connection, runtime, asyncio.get_running_loop())
    result: AgentConnection = threaded
    return result
