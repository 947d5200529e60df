"""Kernels without a Jupyter server (`jupyter prime`, print mode): a private `AsyncMultiKernelManager`.

jupyter_client is imported on first launch, not with this module, so building a session stays cheap.
The kernels' own stdout/stderr (launch banners, C-level noise) go to /dev/null by default: in a
terminal app they would scribble over the screen, and everything the model needs arrives over iopub.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from typing import Any, cast

from prime_jupyter.kernel.managed import ManagedKernelOps, MultiKernelManagerLike, launch_managed

__all__ = ["LocalKernelLauncher"]


class LocalKernelLauncher:
    """A `KernelLauncher` owning one `AsyncMultiKernelManager`; `aclose()` stops all its kernels."""

    def __init__(self, *, quiet: bool = True) -> None:
        self._quiet = quiet
        self._manager: MultiKernelManagerLike | None = None

    async def launch(self, *, kernel_name: str, cwd: str, env: Mapping[str, str] | None = None) -> ManagedKernelOps:
        kwargs: dict[str, Any] = {"kernel_name": kernel_name, "cwd": cwd}
        if env:
            kwargs["env"] = {**os.environ, **env}
        if self._quiet:
            kwargs["stdout"] = kwargs["stderr"] = subprocess.DEVNULL
        return await launch_managed(self._get_manager(), **kwargs)

    async def aclose(self) -> None:
        """Shut down every kernel this launcher started."""
        if self._manager is not None:
            await self._manager.shutdown_all()  # type: ignore[attr-defined]

    def _get_manager(self) -> MultiKernelManagerLike:
        if self._manager is None:
            from jupyter_client.multikernelmanager import AsyncMultiKernelManager
            from jupyter_core.paths import jupyter_runtime_dir

            # The plain async manager has no auto-restarter: restarts are the provisioner's job.
            # Connection files go to Jupyter's runtime dir, never the process's working directory.
            runtime = jupyter_runtime_dir()
            os.makedirs(runtime, exist_ok=True)
            self._manager = cast(
                MultiKernelManagerLike,
                AsyncMultiKernelManager(
                    kernel_manager_class="jupyter_client.manager.AsyncKernelManager", connection_dir=runtime
                ),
            )
        return self._manager
