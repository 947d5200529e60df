"""A request body in pieces, sent as they are: what a provider hands the transport (`_http.post_stream`).

A long history's body is the few large chunks its provider kept from the turn before (`_encoded`);
joining them copied the whole body each turn (5.7 MB at 10,000 entries: 0.9 ms of the 3.2 ms between a
tool's end and the next request's first byte, `benchmarks/bench_agent.py`), and the socket transport
then copied what the kernel did not take at once a second time. So each large piece goes to the
transport as a `memoryview`, which it slices without copying; runs of small pieces are joined first.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["SMALL", "Body", "body_size", "writes"]

Body = bytes | Sequence[bytes]
"""A request body: its bytes, or pieces of them in order."""

SMALL = 1 << 16
"""A body, or a piece, under this size is joined with what is next to it."""


def body_size(body: Body) -> int:
    """The length of `body` in bytes."""
    return len(body) if isinstance(body, bytes) else sum(map(len, body))


def writes(head: bytes, body: Body) -> list[bytes | memoryview]:
    """What the transport is handed, in order: a small request in one write (one system call); a large
    one with each large piece as it is and each run of small ones joined (a resumed session's first
    request is 22,000 wire messages: a write each cost 60 ms), all as views the transport slices
    without copying."""
    pieces = [body] if isinstance(body, bytes) else body
    if body_size(body) < SMALL:
        return [b"".join((head, *pieces))]
    out: list[bytes | memoryview] = []
    small: list[bytes] = [head]
    for piece in pieces:
        if len(piece) < SMALL:
            small.append(piece)
            continue
        if small:
            out.append(memoryview(b"".join(small)))
            small = []
        out.append(memoryview(piece))
    if small:
        out.append(memoryview(b"".join(small)))
    return out
