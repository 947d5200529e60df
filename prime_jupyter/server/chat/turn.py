"""`TurnStream`: the frames one `POST chat` answers with (the recipe in `protocol.mapper`'s docstring).

The stream listens before it sends, then forwards from the first `start` after the send through the
`done` with that run id. A message that cannot start a run (busy, no API key) gets one `error` frame
instead. A `steer` / `followUp` message sent while a run is going is queued into that run, and its
stream joins the run: a `start` with the run's id, then the rest of the run through its `done`.
The run belongs to the session, not to the request: a client that goes away only stops listening.
"""

from __future__ import annotations

import asyncio
import logging

from prime_jupyter.ai.types import ImageContent
from prime_jupyter.errors import BusyError, MissingApiKeyError, ModelNotFoundError, PrimeError
from prime_jupyter.protocol.frames import DoneFrame, ErrorFrame, ErrorReason, StartFrame
from prime_jupyter.server.host.live import LiveSession
from prime_jupyter.server.host.ring import RingEntry, unsequenced
from prime_jupyter.server.http.feeds import Feed

__all__ = ["TurnStream", "error_reason"]

log = logging.getLogger(__name__)


def error_reason(error: BaseException) -> ErrorReason:
    """The wire reason of an error that kept a request from doing its work."""
    if isinstance(error, BusyError):
        return "busy"
    if isinstance(error, MissingApiKeyError):
        return "no-api-key"
    if isinstance(error, ModelNotFoundError):
        return "unknown-model"
    return "invalid" if isinstance(error, PrimeError) else "internal"


class TurnStream:
    def __init__(self, live: LiveSession) -> None:
        self.feed: Feed[RingEntry] = Feed()
        self._live = live
        self._run_id: str | None = None
        self._finished = False
        self._stop_listening = live.listen(self._on_entry)

    async def start(self, text: str, images: list[ImageContent], behavior: str | None) -> None:
        """Send the message: queue it into the run going on, or start a run with it."""
        if await self._live.send(text, images, behavior):
            self._join_current_run()
        task = asyncio.ensure_future(self._watch_run())
        self._live.keep(task)

    def fail(self, error: BaseException) -> None:
        """End the stream with one `error` frame (the run could not start, or broke)."""
        if isinstance(error, PrimeError | ValueError):
            message = str(error)
        else:
            log.error("a chat request failed", exc_info=error)
            message = "the server failed to run this message; see its log"
        self._finish(ErrorFrame(message=message, reason=error_reason(error), run_id=self._run_id))

    def detach(self) -> None:
        """The client went away: stop listening (the run goes on)."""
        self._finished = True
        self._stop_listening()
        self.feed.close()

    def _join_current_run(self) -> None:
        run_id = self._live.mapper.run_id
        if run_id is not None and self._run_id is None:
            self._run_id = run_id
            self.feed.put(unsequenced(StartFrame(run_id=run_id, session_id=self._live.session_id)))

    async def _watch_run(self) -> None:
        """A run that ends without its `done` (a bug, not a model failure) still ends the stream."""
        await self._live.connection.wait_for_idle()
        if not self._finished:
            self._finish(ErrorFrame(message="the run ended without finishing", reason="internal", run_id=self._run_id))

    def _on_entry(self, entry: RingEntry | None) -> None:
        if entry is None:
            self._finish(ErrorFrame(message="the session was closed", reason="not-found", run_id=self._run_id))
            return
        frame = entry.frame
        if self._run_id is None:
            if not isinstance(frame, StartFrame):
                return
            self._run_id = frame.run_id
        self.feed.put(entry)
        if isinstance(frame, DoneFrame) and frame.run_id == self._run_id:
            self._finish(None)

    def _finish(self, error: ErrorFrame | None) -> None:
        if self._finished:
            return
        if error is not None:
            self.feed.put(unsequenced(error))
        self.detach()
