"""The HTTP stack under the provider SDKs, and their clients: one per event loop and settings.

Both SDKs run on httpx unless told otherwise. They also offer aiohttp (`DefaultAioHttpClient`, the
SDKs' documented alternative), whose C parser and protocol-based reads cost about a third less CPU
per streamed delta (`benchmarks/bench_server.py`) and about 1.5 ms less per request
(`benchmarks/bench_agent.py`). Both SDKs import aiohttp themselves when it is installed, so choosing it
costs no start-up time. The choice is a stream option (`StreamOptions.http_backend`), passed down from
the session's options: the hosts that run turns (the Jupyter server, the command line) ask for
aiohttp; the default for anyone else embedding the runtime stays httpx. No module global is set.

An SDK client holds a connection pool, so turns reuse their connection; a pool belongs to the event
loop that opened it (aiohttp's strictly so), hence one client per loop. A loop that is gone takes its
clients with it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import weakref
from collections.abc import Callable, Hashable
from typing import Literal, TypeVar, cast

__all__ = ["HttpBackend", "aiohttp_available", "cached_client", "check_backend", "close_clients"]

HttpBackend = Literal["httpx", "aiohttp"]
T = TypeVar("T")

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Hashable, object]] = weakref.WeakKeyDictionary()


def aiohttp_available() -> bool:
    return importlib.util.find_spec("aiohttp") is not None


def check_backend(backend: str) -> HttpBackend:
    """`backend` if this process can use it; "auto" is aiohttp when installed, else httpx."""
    if backend == "auto":
        return "aiohttp" if aiohttp_available() else "httpx"
    if backend not in ("httpx", "aiohttp"):
        raise ValueError(f"unknown HTTP backend {backend!r}: use 'auto', 'httpx' or 'aiohttp'")
    if backend == "aiohttp" and not aiohttp_available():
        raise ValueError("the aiohttp HTTP backend needs the aiohttp package: pip install aiohttp")
    return cast(HttpBackend, backend)


def cached_client(key: Hashable, make: Callable[[bool], T], backend: HttpBackend = "httpx") -> T:
    """The client for `key` over `backend` on the running loop; `make(use_aiohttp)` builds it the first time."""
    per_loop = _clients.setdefault(asyncio.get_running_loop(), {})
    full_key = (key, backend)
    client = per_loop.get(full_key)
    if client is None:
        client = per_loop[full_key] = make(backend == "aiohttp")
    return cast(T, client)


async def close_clients() -> None:
    """Close the clients of the running loop (their connection pools), e.g. when the server stops."""
    for client in _clients.pop(asyncio.get_running_loop(), {}).values():
        close = getattr(client, "close", None)
        if close is not None:
            await close()
