"""Network conditions the scripted server cannot make: a host whose connections hang, a bare port."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["hanging_port"]


@contextmanager
def hanging_port() -> Iterator[int]:
    """A loopback port where a connection never completes, as on a route that drops packets: it listens
    with an accept queue of one that one connection already fills, so Linux drops every further SYN."""
    with socket.socket() as listener, socket.socket() as filler:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        filler.connect(listener.getsockname())
        yield listener.getsockname()[1]
