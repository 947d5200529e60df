"""`KernelCuller`: agent kernels idle for longer than `cull_idle_timeout` are shut down, their sessions kept.

Named and meant as Jupyter's own culling (`MappingKernelManager.cull_idle_timeout`, `cull_interval`,
`cull_connected`, `cull_busy`), but for the agent's kernels only and as `c.PrimeApp` settings, so a
server can free what idle agent sessions hold without culling its users' notebooks. Idle is what the
kernel manager records (`last_activity` of any message on the kernel, the agent's or a Lab console's,
and `execution_state`); a kernel someone is connected to (a console open on it) is left alone unless
`cull_connected`, a busy one unless `cull_busy`, one the agent is running code on always.

Culling releases the kernel through its provisioner (`IpythonKernelProvisioner.release`), not behind
its back: the session's next `ipython` call starts a fresh kernel and the model is told that its state
is gone, as after a crash.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, runtime_checkable

from prime_jupyter.server.config import CullPolicy

__all__ = ["KernelCuller", "ReleasableKernel"]

log = logging.getLogger(__name__)


@runtime_checkable
class ReleasableKernel(Protocol):
    """What the culler uses of a session's kernel (`kernel.provisioner.IpythonKernelProvisioner`); a
    protocol, so loading the extension does not import the kernel package (design.md D10)."""

    @property
    def kernel_id(self) -> str | None: ...

    async def release(self, notice: str) -> bool: ...


class KernelCuller:
    def __init__(self, policy: CullPolicy, kernel_manager: Any, kernels: Callable[[], list[ReleasableKernel]]) -> None:
        """`kernel_manager`: `serverapp.kernel_manager` (what it records of each kernel decides idleness);
        `kernels`: the provisioners of the open sessions."""
        self.policy = policy
        self._manager = kernel_manager
        self._kernels = kernels
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.policy.enabled and self._task is None:
            self._task = asyncio.ensure_future(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _run(self) -> None:
        interval = max(1, self.policy.interval_s)
        while True:
            await asyncio.sleep(interval)  # the period of a timer, as Jupyter's PeriodicCallback
            try:
                await self.cull_once()
            except Exception:
                log.exception("culling idle agent kernels failed")

    async def cull_once(self) -> int:
        """Release every agent kernel idle past the timeout now; how many were culled."""
        from prime_jupyter.kernel.provisioner import LOST_STATE  # only once culling runs

        culled = 0
        for provisioner in self._kernels():
            kernel_id = provisioner.kernel_id
            idle = self._idle_for(kernel_id) if kernel_id is not None else None
            if idle is None or idle <= timedelta(seconds=self.policy.idle_timeout_s):
                continue
            notice = (
                f"The kernel was shut down after {int(idle.total_seconds())} s without activity (idle culling),"
                f" so this runs on a fresh one: {LOST_STATE}."
            )
            if await provisioner.release(notice):
                log.info("culled agent kernel %s after %d s idle", kernel_id, idle.total_seconds())
                culled += 1
        return culled

    def _idle_for(self, kernel_id: str) -> timedelta | None:
        """How long the kernel has been idle by the policy; None when it may not be culled."""
        kernels: dict[str, Any] = getattr(self._manager, "_kernels", {})
        kernel = kernels.get(kernel_id)
        last = getattr(kernel, "last_activity", None)
        if not isinstance(last, datetime):
            return None
        if not self.policy.busy and getattr(kernel, "execution_state", None) == "busy":
            return None
        connections: dict[str, int] = getattr(self._manager, "_kernel_connections", {})
        if not self.policy.connected and connections.get(kernel_id, 0):
            return None
        return datetime.now(UTC) - last
