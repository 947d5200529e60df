"""`EventFollower`: follows one session's `GET connection/events` from a cursor, and keeps following.

Messages are split with `SseDecoder` (on `"\\n"` only). Each `session_event` goes to the owner's
`on_event`; then the cursor moves to its `id:`, so whoever awaits `reached(seq)` knows every listener
saw the events up to `seq`. When the stream drops, the follower reports `reconnecting`, reconnects
with backoff and the last cursor (the server replays what was missed) and reports `connected` when
the new stream opens. When the server answers `resync-required` (the cursor is too old, or from an
earlier server process), the owner re-attaches (`on_resync`, which returns the fresh snapshot's
cursor) and the follower goes on from there. A session that is gone, a refused token, or a server
away for longer than `reconnect_window_s` ends it with `Closed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

import httpx
from pydantic import JsonValue

from prime_jupyter.connection._transport import HttpTransport, ServerUnavailableError, describe
from prime_jupyter.connection.types import Closed, ConnectionStatus
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.connection_routes import CONNECTION_PATH
from prime_jupyter.protocol.framing import SseDecoder, SseMessage

__all__ = ["EventFollower", "FollowerHooks"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FollowerHooks:
    """What the follower hands its owner: each session event (as JSON), a request to re-attach (which
    returns the fresh snapshot's cursor), and the connection's status changes."""

    on_event: Callable[[Mapping[str, JsonValue], int | None], None]
    """A session event and its place in the log (the message's `id:`), if it has one."""
    on_resync: Callable[[], Awaitable[int]]
    on_status: Callable[[ConnectionStatus | Closed], None]


class _Resync(Exception):
    """The server asked for a fresh snapshot."""


class EventFollower:
    def __init__(
        self,
        transport: HttpTransport,
        session_id: str,
        cursor: int,
        hooks: FollowerHooks,
        reconnect_window_s: float = 60.0,
    ) -> None:
        self.session_id = session_id
        self.cursor = cursor
        self.closed: str | None = None
        self._transport = transport
        self._hooks = hooks
        self._window = reconnect_window_s
        self._progress = asyncio.Event()
        self._outage: float | None = None
        self._delay = 0.1
        self._task = asyncio.ensure_future(self._run())

    async def reached(self, seq: int) -> None:
        """Return once every event up to `seq` was delivered; raise when the stream ended for good."""
        while self.cursor < seq and self.closed is None:
            self._progress.clear()
            await self._progress.wait()
        if self.cursor < seq and self.closed is not None:
            raise PrimeError(f"the connection to session {self.session_id} is closed: {self.closed}")

    async def stop(self) -> None:
        """Stop following; whoever still waits in `reached()` gets an error instead of waiting forever."""
        self.closed = self.closed or "stopped following it"
        self._progress.set()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    # --- the loop -------------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            try:
                error = await self._attempt()
            except PrimeError as exc:  # the session is gone, the token refused: nothing to retry
                return self._close(str(exc))
            if error is None:
                continue
            if not self._lost(error):
                return
            await asyncio.sleep(self._delay)
            self._delay = min(self._delay * 2, 2.0)

    async def _attempt(self) -> str | None:
        """Follow the stream once: None after a resync, else why it ended. Fatal errors raise."""
        try:
            try:
                await self._follow()
            except _Resync:
                self._set_cursor(await self._hooks.on_resync())
                return None
            return "the event stream ended"
        except (httpx.TransportError, ServerUnavailableError) as exc:
            return describe(exc)

    async def _follow(self) -> None:
        params = {"sessionId": self.session_id, "cursor": str(self.cursor)}
        async with self._transport.stream(CONNECTION_PATH + "events", params) as response:
            decoder = SseDecoder()
            async for chunk in response.aiter_bytes():
                for message in decoder.feed(chunk):
                    self._handle(message)

    def _handle(self, message: SseMessage) -> None:
        try:
            data = json.loads(message.data)
        except ValueError:
            log.warning("skipped a malformed message on the event stream of %s", self.session_id)
            return
        kind = data.get("type") if isinstance(data, dict) else None
        seq = int(message.id) if message.id is not None and message.id.isdigit() else None
        if kind == "session_event" and isinstance(data.get("event"), dict):
            self._deliver(data["event"], seq)
        elif kind == "connected":
            self._connected()
        elif kind == "resync-required":
            raise _Resync()
        if seq is not None:
            self._set_cursor(seq)

    def _deliver(self, event: Mapping[str, JsonValue], seq: int | None) -> None:
        try:
            self._hooks.on_event(event, seq)
        except Exception:
            log.exception("a listener failed on a session event")

    def _set_cursor(self, seq: int) -> None:
        self.cursor = seq
        self._progress.set()

    def _connected(self) -> None:
        self._delay = 0.1
        if self._outage is not None:
            self._outage = None
            self._hooks.on_status(ConnectionStatus("connected"))

    def _lost(self, error: str) -> bool:
        """Report the outage; False (and closed) once it lasted longer than the reconnect window."""
        now = asyncio.get_running_loop().time()
        if self._outage is None:
            self._outage = now
            self._hooks.on_status(ConnectionStatus("reconnecting", error))
        elif now - self._outage > self._window:
            self._close(f"the Jupyter server has been unreachable for {self._window:.0f} s: {error}")
            return False
        return True

    def _close(self, error: str) -> None:
        self.closed = error
        self._progress.set()
        self._hooks.on_status(Closed(error))
