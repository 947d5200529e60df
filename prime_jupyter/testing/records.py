"""What the scripted server remembers about each request it served.

Timestamps carry both clocks: `perf` (`time.perf_counter()`, for in-process latency) and `wall`
(`time.time()`, comparable across processes, e.g. a benchmark client and a subprocess server).
"""

from __future__ import annotations

import time
from typing import Literal, TypeAlias

from pydantic import BaseModel, JsonValue

__all__ = ["Outcome", "RecordedApi", "RecordedRequest", "Stamp"]

RecordedApi: TypeAlias = Literal["anthropic", "openai_chat", "openai_responses", "models", "unknown"]
Outcome: TypeAlias = Literal[
    "completed",  # full response written (stream terminated properly or JSON body sent)
    "http_error",  # scripted HttpError / ContextOverflow status answered
    "stream_error",  # in-stream error event sent, body ended
    "cut",  # socket closed mid-stream on purpose
    "client_disconnected",  # the client went away before the response was fully written
    "no_turn",  # the turn queue was empty: 500 "no turn left"
    "bad_request",  # unparseable JSON body or unknown path
]


class Stamp(BaseModel):
    """One instant on both clocks."""

    perf: float
    wall: float

    @classmethod
    def now(cls) -> Stamp:
        """The current instant."""
        return cls(perf=time.perf_counter(), wall=time.time())


class RecordedRequest(BaseModel):
    """One request as received, completed in place when its response's last byte is written.

    `number` is the 1-based position in `ScriptedLLMServer.requests` (the N of "no turn left for
    request N"). `headers` have lower-cased names. `body` is the parsed JSON (None if unparseable).
    `finished_at`/`status`/`outcome` stay None until the response is done.
    """

    number: int
    api: RecordedApi
    method: str
    path: str
    """As the request line gave it, query string included (Azure's `?api-version=`)."""
    headers: dict[str, str]
    body: JsonValue = None
    stream: bool = False
    received_at: Stamp
    finished_at: Stamp | None = None
    status: int | None = None
    outcome: Outcome | None = None
    connection: int = 0
    """Which of the server's connections carried it (1-based, in the order they were accepted): requests
    with the same number went over one kept-alive connection."""
