"""`LiveSession`: one session running in this server, with its event mapper, ring buffer and listeners.

The session is held through its `InProcessAgentConnection` (the seam every front end uses); the few
things the connection does not offer (queues, pending questions, the transcript for hydration) are
read from `connection.session`. Its events go through the event mapper once; each frame is numbered
into the ring and handed to every listener (the NDJSON stream of a run, SSE clients, the question
store). Everything here runs on the server's event loop, so a snapshot (`chat/session`) and the ring
cursor taken in the same call agree.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Literal

from prime_jupyter import gc_policy
from prime_jupyter.ai.types import ImageContent
from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.connection.types import ClientNotice, ConnectionEvent, SessionEventReceived, SessionReplaced
from prime_jupyter.protocol.events import AgentEnd
from prime_jupyter.protocol.frames import ChatFrame, NotifyFrame, ResyncRequiredFrame
from prime_jupyter.protocol.hydration import total_usage
from prime_jupyter.protocol.mapper import EventMapper
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.views import branch_messages
from prime_jupyter.server.host.ring import RingBuffer, RingEntry

__all__ = ["EntryListener", "LiveSession"]

log = logging.getLogger(__name__)

EntryListener = Callable[[RingEntry | None], None]
"""Gets every frame as it is numbered, and None when the session closes (deleted, server stopping)."""

_BEHAVIOR: dict[str, Literal["steer", "follow_up"]] = {"steer": "steer", "followUp": "follow_up"}


class LiveSession:
    def __init__(
        self, connection: InProcessAgentConnection, ring_size: int = 500, *, tune_process_memory: bool = False
    ) -> None:
        """`tune_process_memory`: freeze the modules a run imported out of the collector (`gc_policy`), a
        process-wide change the server's administrator must have asked for (`c.PrimeApp`)."""
        self.connection = connection
        self.tune_process_memory = tune_process_memory
        self.ring = RingBuffer(ring_size)
        self.session_id = connection.session.session_id
        self.mapper = self._new_mapper()
        self._listeners: dict[int, EntryListener] = {}
        self._next_listener = 0
        self.closed = False
        self._tasks: set[asyncio.Future[None]] = set()
        self._unsubscribe = connection.subscribe(self._on_event)

    @property
    def session(self) -> AgentSession:
        return self.connection.session

    @property
    def is_running(self) -> bool:
        return self.session.is_running

    def _new_mapper(self) -> EventMapper:
        registry = self.session.registry

        def window(provider: str, model_id: str) -> int | None:
            return next((m.context_window for m in registry.models if (m.provider, m.id) == (provider, model_id)), None)

        spent = total_usage(branch_messages(self.session.manager)[0])  # compacted history cost money too
        return EventMapper(self.session_id, context_window=window, usage_total=spent)

    # --- frames ---------------------------------------------------------------------------------

    def _on_event(self, event: ConnectionEvent) -> None:
        if isinstance(event, SessionEventReceived):
            for frame in self.mapper.map(event.event):
                self.publish(frame)
            if isinstance(event.event, AgentEnd) and self.tune_process_memory:
                gc_policy.modules_loaded()  # a first run imports the provider SDK: long-lived objects
        elif isinstance(event, ClientNotice):
            self.publish(NotifyFrame(level=event.level, message=event.message))
        elif isinstance(event, SessionReplaced):  # the bridge never replaces; say so loudly if someone did
            log.error("session %s was replaced inside the server; its clients must refetch", self.session_id)
            self.history_changed()

    def publish(self, frame: ChatFrame) -> RingEntry:
        """Number a frame into the ring and hand it to every listener."""
        entry = self.ring.push(frame)
        for listener in tuple(self._listeners.values()):
            try:
                listener(entry)
            except Exception:
                log.exception("a frame listener of session %s failed", self.session_id)
        return entry

    def listen(self, listener: EntryListener) -> Callable[[], None]:
        """Hand `listener` every frame from now on; call the result to stop."""
        key = self._next_listener
        self._next_listener += 1
        self._listeners[key] = listener
        return lambda: self._listeners.pop(key, None) and None

    def history_changed(self) -> None:
        """The branch moved (tree navigation): clients must refetch, and usage starts over from it."""
        self.mapper = self._new_mapper()
        self.publish(ResyncRequiredFrame(reason="history-changed"))

    # --- driving the session --------------------------------------------------------------------

    async def send(self, text: str, images: list[ImageContent], behavior: str | None) -> bool:
        """Start a run with the message, or queue it into the run going on (`steer` / `followUp`);
        True when it was queued. Raises before anything runs when it cannot (busy, no API key)."""
        result = await self.connection.prompt(text, images or None, _BEHAVIOR.get(behavior or ""))
        return result.queued is not None

    def keep(self, task: asyncio.Future[None]) -> None:
        """Hold a reference to work started for this session until it is done (the loop holds only weak ones)."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def dispose(self) -> None:
        """Stop the session (its run, its kernel) and end every listener's stream.

        The run is aborted while the streams still listen, so they end with its `done` (stop reason
        `aborted`) rather than with no word on what happened to it."""
        try:
            await self.connection.abort()
            await self.connection.dispose()
        finally:
            self.close()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._unsubscribe()
        for listener in tuple(self._listeners.values()):
            listener(None)
        self._listeners.clear()
