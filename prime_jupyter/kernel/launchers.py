"""Choosing where kernels come from: the Jupyter server's kernel manager when there is one, else a
process-wide `LocalKernelLauncher` (one `AsyncMultiKernelManager` for all sessions of the process)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from prime_jupyter.kernel.local import LocalKernelLauncher
from prime_jupyter.kernel.ops import KernelLauncher
from prime_jupyter.kernel.server import ServerKernelLauncher

if TYPE_CHECKING:
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

__all__ = ["launcher_for", "shared_local_launcher"]

_shared: LocalKernelLauncher | None = None


def shared_local_launcher() -> LocalKernelLauncher:
    """The process's local launcher; its kernels are shut down by their sessions, or at exit by the reaper."""
    global _shared
    if _shared is None:
        _shared = LocalKernelLauncher()
    return _shared


def launcher_for(kernel_manager: object | None) -> KernelLauncher:
    """Kernels from `kernel_manager` (a jupyter_server `AsyncMappingKernelManager`), or local ones."""
    if kernel_manager is None:
        return shared_local_launcher()
    return ServerKernelLauncher(cast("AsyncMappingKernelManager", kernel_manager))
