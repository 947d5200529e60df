"""`RingBuffer`: numbering, retention, and which cursors it can still serve."""

from __future__ import annotations

from prime_jupyter.protocol.frames import NotifyFrame
from prime_jupyter.server.ring import RingBuffer


def filled(count: int, capacity: int = 5) -> RingBuffer:
    ring = RingBuffer(capacity)
    for i in range(count):
        ring.push(NotifyFrame(message=str(i)))
    return ring


def test_frames_are_numbered_from_one_and_encoded_once() -> None:
    ring = filled(3)
    entries = ring.since(0)
    assert entries is not None and [e.seq for e in entries] == [1, 2, 3]
    assert entries[0].json == '{"type":"notify","level":"info","message":"0"}'
    assert entries[2].sse() == b'id: 3\ndata: {"type":"notify","level":"info","message":"2"}\n\n'


def test_a_cursor_is_served_while_what_followed_it_is_retained() -> None:
    ring = filled(8)  # holds 4..8
    assert ring.first_seq == 4 and ring.last_seq == 8 and len(ring) == 5
    assert [e.seq for e in ring.since(3) or []] == [4, 5, 6, 7, 8]
    assert [e.seq for e in ring.since(6) or []] == [7, 8]
    assert ring.since(8) == []


def test_cursors_it_cannot_serve() -> None:
    ring = filled(8)
    assert ring.since(2) is None  # frame 3 was dropped
    assert ring.since(9) is None  # from the future: an earlier server process


def test_an_empty_ring_serves_only_cursor_zero() -> None:
    ring = RingBuffer(5)
    assert ring.since(0) == [] and ring.since(1) is None
