"""`RingBuffer`: numbering, retention, and which cursors it can still serve."""

from __future__ import annotations

import time

from prime_jupyter.protocol.frames import NotifyFrame
from prime_jupyter.server.host.ring import RingBuffer


def filled(count: int, capacity: int = 5) -> RingBuffer:
    ring = RingBuffer(capacity)
    for i in range(count):
        ring.push(NotifyFrame(message=str(i)))
    return ring


def test_frames_are_numbered_one_after_the_other_and_encoded_once() -> None:
    ring = filled(3)
    entries = ring.since(ring.start)
    first = ring.start + 1
    assert entries is not None and [e.seq for e in entries] == [first, first + 1, first + 2]
    assert entries[0].json == '{"type":"notify","level":"info","message":"0"}'
    assert entries[2].sse() == f'id: {first + 2}\ndata: {{"type":"notify","level":"info","message":"2"}}\n\n'.encode()


def test_numbers_start_after_the_microsecond_clock_and_stay_exact_in_javascript() -> None:
    before = time.time_ns() // 1000
    ring = filled(1)
    assert before <= ring.start < ring.last_seq < 2**53


def test_a_cursor_is_served_while_what_followed_it_is_retained() -> None:
    ring = filled(8)  # holds the 4th to the 8th frame
    s = ring.start
    assert ring.first_seq == s + 4 and ring.last_seq == s + 8 and len(ring) == 5
    assert [e.seq for e in ring.since(s + 3) or []] == [s + 4, s + 5, s + 6, s + 7, s + 8]
    assert [e.seq for e in ring.since(s + 6) or []] == [s + 7, s + 8]
    assert ring.since(s + 8) == []


def test_cursors_it_cannot_serve() -> None:
    ring = filled(8)
    assert ring.since(ring.start + 2) is None  # the 3rd frame was dropped
    assert ring.since(ring.last_seq + 1) is None  # from the future: another server process
    assert ring.since(0) is None  # "from the start", which is gone


def test_cursor_zero_means_from_the_start_while_the_ring_still_holds_it() -> None:
    empty = RingBuffer(5)
    assert empty.since(0) == [] and empty.since(empty.start + 1) is None
    ring = filled(3)
    assert [e.seq for e in ring.since(0) or []] == [ring.start + 1, ring.start + 2, ring.start + 3]


def test_a_ring_made_after_another_never_reuses_its_numbers() -> None:
    """A restart: the session's new ring must refuse every cursor the old one handed out."""
    old = filled(1000, capacity=2000)
    new = filled(3)
    assert new.start >= old.last_seq
    for cursor in (old.start, old.start + 1, old.first_seq + 500, old.last_seq):
        assert new.since(cursor) is None
