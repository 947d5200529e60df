"""`ScriptedLLMServer`: the scripted LLM server on its own event loop in a background thread.

Works the same from sync tests, async tests (the test's loop is never used) and for subprocess
clients::

    with ScriptedLLMServer([ScriptedTurn(blocks=[Text(text="hi", chunks=2)])]) as srv:
        anthropic.Anthropic(api_key="test", base_url=srv.base_url, max_retries=0)
        openai.OpenAI(api_key="test", base_url=srv.base_url + "/v1", max_retries=0)
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterable
from types import TracebackType

from prime_jupyter.testing.records import RecordedRequest
from prime_jupyter.testing.script import ScriptedTurn
from prime_jupyter.testing.server_core import ScriptedServerCore

__all__ = ["ScriptedLLMServer"]


class ScriptedLLMServer:
    """A `ScriptedServerCore` on its own event loop in a daemon thread, bound to a free port.

    Point the anthropic SDK at `base_url` and the openai SDK at `base_url + "/v1"`; pass
    `max_retries=0` unless retries are under test (each retry consumes a turn). One FIFO of turns
    serves all endpoints; an empty FIFO answers 500 "scripted server: no turn left for request N".
    """

    def __init__(
        self,
        turns: Iterable[ScriptedTurn] = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        on_record: Callable[[RecordedRequest], None] | None = None,
    ) -> None:
        self._core = ScriptedServerCore(turns, on_record)
        self._host = host
        self._port = port
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT`, without `/v1`."""
        return self._core.base_url

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order (a live list)."""
        return self._core.requests

    @property
    def pending(self) -> int:
        """How many turns are still queued."""
        return self._core.pending

    @property
    def tokens_issued(self) -> int:
        """How many access tokens `POST /_scripted/oauth2/token` handed out (to Google's credential chain)."""
        return self._core.tokens_issued

    def enqueue(self, *turns: ScriptedTurn) -> None:
        """Append turns to the shared FIFO; safe from any thread."""
        self._core.enqueue(*turns)

    def start(self) -> ScriptedLLMServer:
        """Start the thread and return once the socket is listening."""
        if self._thread is not None:
            raise RuntimeError("ScriptedLLMServer already started")
        self._thread = threading.Thread(target=self._run, name="scripted-llm-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("scripted server did not start within 10 s")
        if self._error is not None:
            raise RuntimeError(f"scripted server failed to start: {self._error}") from self._error
        return self

    def stop(self) -> None:
        """Close the listener and all connections, then join the thread. Idempotent."""
        loop, stop_event, thread = self._loop, self._stop_event, self._thread
        if loop is not None and stop_event is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(stop_event.set)
        if thread is not None:
            thread.join(10)

    def wait_finished(self, count: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until at least `count` requests have a `finished_at`, and return the records.

        A client can see the last byte a moment before the server stamps `finished_at`.
        """
        deadline = time.monotonic() + timeout
        while True:
            done = [r for r in self.requests if r.finished_at is not None]
            if len(done) >= count:
                return list(self.requests)
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(done)} of {count} requests finished within {timeout} s")
            time.sleep(0.002)

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop_event = asyncio.Event()
        try:
            await self._core.start(self._host, self._port)
        except OSError as exc:
            self._error = exc
            return
        finally:
            self._ready.set()
        await self._stop_event.wait()
        await self._core.close()

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
