"""Kernels of the running Jupyter server: `serverapp.kernel_manager`, passed in as an object.

Such kernels are listed in `/api/kernels`, so a user can open a console on the agent's kernel and look
at its variables; they honour the server's kernel specs, culling and gateway settings. jupyter_server
is imported for typing only: this module never starts a server.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from prime_jupyter.kernel.managed import ManagedKernelOps, MultiKernelManagerLike, launch_managed

if TYPE_CHECKING:
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

__all__ = ["ServerKernelLauncher"]


class ServerKernelLauncher:
    """A `KernelLauncher` over a jupyter_server kernel manager (it stays the server's to stop)."""

    def __init__(self, kernel_manager: AsyncMappingKernelManager) -> None:
        self._manager = cast(MultiKernelManagerLike, kernel_manager)

    async def launch(self, *, kernel_name: str, cwd: str, env: Mapping[str, str] | None = None) -> ManagedKernelOps:
        kwargs: dict[str, Any] = {"kernel_name": kernel_name, "cwd": cwd}
        if env:
            kwargs["env"] = {**os.environ, **env}
        return await launch_managed(self._manager, **kwargs)
