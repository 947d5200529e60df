"""A request body in pieces, sent as they are: what a provider hands the client (`_client.post_stream`).

A long history's body is the few large chunks its provider kept from the turn before (`_encoded`);
joining them copied the whole body each turn (5.7 MB at 10,000 entries: 0.9 ms of the 3.2 ms between a
tool's end and the next request's first byte, `benchmarks/bench_agent.py`). So the large pieces go to the
client as they are, and only runs of small ones are joined: a resumed session's first request is 22,000
wire messages, and a write each cost 60 ms.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["SMALL", "Body", "body_size", "writes"]

Body = bytes | Sequence[bytes]
"""A request body: its bytes, or pieces of them in order."""

SMALL = 1 << 16
"""A piece under this size is joined with the small ones next to it."""


def body_size(body: Body) -> int:
    """The length of `body` in bytes."""
    return len(body) if isinstance(body, bytes) else sum(map(len, body))


def writes(body: Body) -> list[bytes]:
    """What the client is handed to send, in order: a small body in one piece; a large one with each
    large piece as it is and each run of small ones joined."""
    if isinstance(body, bytes):
        return [body]
    if body_size(body) < SMALL:
        return [b"".join(body)]
    out: list[bytes] = []
    small: list[bytes] = []
    for piece in body:
        if len(piece) < SMALL:
            small.append(piece)
            continue
        if small:
            out.append(b"".join(small))
            small = []
        out.append(piece)
    if small:
        out.append(b"".join(small))
    return out
