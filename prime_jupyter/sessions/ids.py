"""Identifiers of sessions and entries.

Session ids are UUIDv7 (RFC 9562): the first 48 bits are the Unix time in milliseconds, so ids sort by
creation time and file names list in order. Entry ids are short (8 hex characters, the first 8 of a
UUID4) because they appear in every line of a transcript and in the UI; uniqueness is only needed
within one session, so they are checked against the ids already taken.
"""

from __future__ import annotations

import secrets
import threading
import time
import uuid
from collections.abc import Container

__all__ = ["new_entry_id", "uuid7"]

_lock = threading.Lock()
_last_ms = 0
_last_counter = 0
_COUNTER_MAX = 0xFFF  # the 12-bit rand_a field doubles as a counter within one millisecond


def _next_stamp() -> tuple[int, int]:
    """A (milliseconds, counter) pair strictly greater than the previous one in this process."""
    global _last_ms, _last_counter
    with _lock:
        now = time.time_ns() // 1_000_000
        if now > _last_ms:
            _last_ms, _last_counter = now, secrets.randbits(11)  # leave headroom for increments
        elif _last_counter < _COUNTER_MAX:
            _last_counter += 1
        else:  # counter exhausted (or the clock went back): borrow the next millisecond
            _last_ms, _last_counter = _last_ms + 1, 0
        return _last_ms, _last_counter


def uuid7() -> str:
    """A new UUIDv7 string; ids minted by one process are strictly increasing."""
    ms, counter = _next_stamp()
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76  # version
    value |= counter << 64
    value |= 0b10 << 62  # RFC 4122 variant
    value |= secrets.randbits(62)
    return str(uuid.UUID(int=value))


def new_entry_id(taken: Container[str]) -> str:
    """An 8-hex-character id not in `taken`, or a full UUID if 100 draws all collide."""
    for _ in range(100):
        candidate = uuid.uuid4().hex[:8]
        if candidate not in taken:
            return candidate
    return str(uuid.uuid4())
