"""`KernelReadiness`: whether sessions in this server can get a kernel, as `GET info` reports it.

Kernels come from the server's own kernel manager (the session factory is given a
`ServerKernelLauncher` over `serverapp.kernel_manager`). A session's kernel starts when its code first
needs one (`kernel.provisioner`), so a session that only talks holds none. `GET info` says:

- `ready`: a kernel can be had. The kernel spec was found (checked when the extension starts, on its
  first request), the cap on agent kernels (`c.PrimeApp.max_kernels`) is not reached, and the latest
  kernel start to end did not fail; `reason` says why not.
- `starting`: session kernels whose start is under way.
- `running`: open sessions holding a started kernel that the kernel manager still has (a kernel shut
  down from elsewhere, culled, or dead for good is gone from it). A deleted session is forgotten first.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from prime_jupyter.protocol.requests import KernelStatus

__all__ = ["KernelList", "KernelReadiness", "SessionKernel", "SpecLookup", "session_kernel"]

log = logging.getLogger(__name__)

SpecLookup = Callable[[str], object]
"""`kernel_spec_manager.get_kernel_spec`: raises when the kernel name is unknown."""


@runtime_checkable
class SessionKernel(Protocol):
    """What readiness reads of a session's kernel (`kernel.provisioner.IpythonKernelProvisioner`)."""

    on_start_end: Callable[[str | None], None] | None
    """Told how each start ends: None when the kernel runs, else why not."""

    @property
    def kernel_id(self) -> str | None:
        """The started kernel's id; None while there is none (not started, starting, failed, closed)."""
        ...

    @property
    def state(self) -> str:
        """`starting` while a start (or a replacement) is under way."""
        ...


class KernelList(Protocol):
    """What readiness reads of the kernel manager the sessions' kernels come from
    (`serverapp.kernel_manager`, an `AsyncMappingKernelManager`)."""

    def list_kernel_ids(self) -> list[str]:
        """The ids of the kernels it still has (one shut down elsewhere or culled is gone)."""
        ...


def session_kernel(session: object) -> SessionKernel | None:
    """The session's kernel (`session.kernel`), or None when its tools use none."""
    kernel = getattr(session, "kernel", None)
    return kernel if isinstance(kernel, SessionKernel) else None


class KernelReadiness:
    def __init__(
        self,
        kernel_name: str,
        spec_lookup: SpecLookup | None = None,
        kernel_manager: KernelList | None = None,
        capacity: Callable[[], str | None] | None = None,
    ) -> None:
        """`kernel_manager`: the manager the sessions' kernels come from (its kernel list says which are
        still there); None when they are started elsewhere. `capacity`: why no kernel can be started
        right now (the cap on agent kernels is reached), else None; read live, so `ready` comes back
        as soon as a kernel goes, and a start refused by the cap is no lasting problem."""
        self.kernel_name = kernel_name
        self._lookup = spec_lookup
        self._manager = kernel_manager
        self._capacity = capacity or (lambda: None)
        self._spec_problem: str | None = "kernel readiness not checked yet"
        self._start_problem: str | None = None
        self._kernels: dict[str, SessionKernel] = {}

    @property
    def status(self) -> KernelStatus:
        reason = self._spec_problem or self._capacity() or self._start_problem
        starting = sum(1 for kernel in self._kernels.values() if kernel.state == "starting")
        return KernelStatus(ready=reason is None, reason=reason, starting=starting, running=self._running())

    async def check(self) -> None:
        """Look the kernel spec up (once, when the extension starts)."""
        if self._lookup is None:
            self._spec_problem = "no kernel spec manager"
            return
        try:
            await asyncio.to_thread(self._lookup, self.kernel_name)
        except Exception as exc:
            self._spec_problem = f"no kernel spec {self.kernel_name!r}: {exc}"
        else:
            self._spec_problem = None

    def track(self, session_id: str, kernel: SessionKernel) -> None:
        """Count the session's kernel from now on (it starts when the session first needs it)."""
        self._kernels[session_id] = kernel
        kernel.on_start_end = lambda problem: self._start_ended(session_id, kernel, problem)

    def forget(self, session_id: str) -> None:
        """The session is closing: stop counting its kernel, and ignore how its start ends."""
        kernel = self._kernels.pop(session_id, None)
        if kernel is not None:
            kernel.on_start_end = None

    def _start_ended(self, session_id: str, kernel: SessionKernel, problem: str | None) -> None:
        if self._kernels.get(session_id) is not kernel:
            return  # forgotten meanwhile (deleted): a start cut short by closing is no news
        if problem is not None and self._capacity() is not None:
            problem = None  # refused by the cap: `status` says so while it lasts
        self._start_problem = f"the kernel did not start: {problem}" if problem is not None else None
        if problem is not None:
            log.warning("the kernel of session %s did not start: %s", session_id, problem)

    def _running(self) -> int:
        listed = set(self._manager.list_kernel_ids()) if self._manager is not None else None
        started = (kernel.kernel_id for kernel in self._kernels.values())
        return sum(1 for kernel_id in started if kernel_id is not None and (listed is None or kernel_id in listed))
