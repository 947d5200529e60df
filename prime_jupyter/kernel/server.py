"""Kernels of the running Jupyter server: `serverapp.kernel_manager`, passed in as an object.

Such kernels are listed in `/api/kernels`, so a user can open a console on the agent's kernel and look
at its variables; they honour the server's kernel specs, culling and gateway settings. jupyter_server
is imported for typing only: this module never starts a server.

The launcher can cap how many of its kernels live at once (`c.PrimeApp.max_kernels`): every session
prewarms a kernel, and without a cap an authenticated client could start them without end. A start
over the cap is refused with a `KernelError` saying what to do (the model reads it as the tool's
error; `GET info` as the reason kernels are not ready); one that frees a slot lets the next start go.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from prime_jupyter.kernel.managed import ManagedKernelOps, MultiKernelManagerLike, launch_managed
from prime_jupyter.kernel.ops import KernelError

if TYPE_CHECKING:
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

__all__ = ["ServerKernelLauncher"]


class ServerKernelLauncher:
    """A `KernelLauncher` over a jupyter_server kernel manager (it stays the server's to stop)."""

    def __init__(
        self,
        kernel_manager: AsyncMappingKernelManager,
        *,
        max_kernels: int = 0,
        environment: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        """`max_kernels`: most kernels of this launcher alive at once (0: no cap). A kernel counts from
        the moment its start begins until the kernel manager no longer lists it (shut down by its
        session, from Lab, culled, dead). `environment` makes the environment each kernel starts in (the
        server's without its provider keys: `runtime.environment`); None: the server's."""
        self._environment = environment
        self._manager = cast(MultiKernelManagerLike, kernel_manager)
        self._list = kernel_manager.list_kernel_ids
        self.max_kernels = max_kernels
        self._ours: set[str] = set()
        self._starting = 0

    @property
    def live_kernels(self) -> int:
        """Kernels of this launcher alive or starting now."""
        self._ours &= set(self._list())
        return len(self._ours) + self._starting

    def refusal(self) -> str | None:
        """Why a kernel cannot be started now (the cap is reached); None when one can."""
        if self.max_kernels <= 0 or self.live_kernels < self.max_kernels:
            return None
        return (
            f"this server already runs {self.max_kernels} agent kernels, its cap (c.PrimeApp.max_kernels):"
            " close a session you no longer need, or wait until an idle one is culled"
            " (c.PrimeApp.cull_idle_timeout), then try again"
        )

    async def launch(self, *, kernel_name: str, cwd: str, env: Mapping[str, str] | None = None) -> ManagedKernelOps:
        refusal = self.refusal()
        if refusal is not None:
            raise KernelError(refusal)
        kwargs: dict[str, Any] = {"kernel_name": kernel_name, "cwd": cwd}
        if env or self._environment is not None:
            base = self._environment() if self._environment is not None else os.environ
            kwargs["env"] = {**base, **(env or {})}
        self._starting += 1
        try:
            ops = await launch_managed(self._manager, **kwargs)
        finally:
            self._starting -= 1
        self._ours.add(ops.kernel_id)
        return ops
