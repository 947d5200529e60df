"""`KernelReadiness`: whether sessions in this server can get a kernel, as `GET info` reports it.

Kernels come from the server's own kernel manager (the session factory is given
`serverapp.kernel_manager`, and starts the session's kernel in the background as soon as the session
exists: the prewarm). Readiness is first the kernel spec check made when the extension starts (its
first request), then the outcome of the latest prewarm of a session that has a kernel.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

from prime_jupyter.protocol.requests import KernelStatus

__all__ = ["KernelReadiness"]

log = logging.getLogger(__name__)

SpecLookup = Callable[[str], object]
"""`kernel_spec_manager.get_kernel_spec`: raises when the kernel name is unknown."""


@runtime_checkable
class _Warmable(Protocol):
    def ensure(self) -> Awaitable[object]: ...


class KernelReadiness:
    def __init__(self, kernel_name: str, spec_lookup: SpecLookup | None = None, timeout_s: float = 60.0) -> None:
        self.kernel_name = kernel_name
        self._lookup = spec_lookup
        self._timeout_s = timeout_s
        self.status = KernelStatus(ready=False, reason="kernel readiness not checked yet")

    async def check(self) -> None:
        """Look the kernel spec up (once, when the extension starts)."""
        if self._lookup is None:
            self.status = KernelStatus(ready=False, reason="no kernel spec manager")
            return
        try:
            await asyncio.to_thread(self._lookup, self.kernel_name)
        except Exception as exc:
            self.status = KernelStatus(ready=False, reason=f"no kernel spec {self.kernel_name!r}: {exc}")
        else:
            self.status = KernelStatus(ready=True)

    async def track(self, session: object) -> None:
        """Follow a session's kernel prewarm, if it has a kernel (`session.kernel.ensure()`)."""
        kernel = getattr(session, "kernel", None)
        if not isinstance(kernel, _Warmable):
            return
        try:
            await asyncio.wait_for(kernel.ensure(), self._timeout_s)
        except Exception as exc:
            log.warning("kernel prewarm failed: %s", exc)
            self.status = KernelStatus(ready=False, reason=f"the kernel did not start: {exc}")
        else:
            self.status = KernelStatus(ready=True)
