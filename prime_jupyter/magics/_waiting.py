"""What `Session` needs around the waiting: the async pump, finding the shell."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.kernel.inprocess import ShellChannel

__all__ = ["AsyncPump", "nothing", "running_shell", "session_id_of"]


class AsyncPump:
    """Pumps an open channel from a coroutine on the calling thread's loop.

    While it runs handed-over work, SIGINT raises KeyboardInterrupt (as in a synchronous cell) rather
    than whatever the loop's owner installed (ipykernel cancels an awaiting cell's task): so the stop
    button and the agent's own interrupts stop the code that runs, and the channel counts them.
    """

    def __init__(self, channel: ShellChannel) -> None:
        self._channel = channel
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()

    def wake(self) -> None:
        self._loop.call_soon_threadsafe(self._event.set)

    async def step(self, until: concurrent.futures.Future[Any], stop: Callable[[], bool] | None) -> None:
        until.add_done_callback(lambda _: self.wake())
        while True:
            self._event.clear()
            with _interruptible():
                self._channel.drain()
            if (stop is not None and stop()) or (until.done() and self._channel.idle):
                return
            await self._event.wait()


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous is None:
        yield  # signals reach the main thread only; a handler set outside Python cannot be put back
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def running_shell() -> object | None:
    """The IPython shell of this process, if one runs (IPython is not imported to find out)."""
    ipython = sys.modules.get("IPython")
    shell: object | None = ipython.get_ipython() if ipython is not None else None
    return shell


async def session_id_of(connection: AgentConnection) -> str:
    return (await connection.get_state()).session_id


async def nothing() -> None:
    return None
