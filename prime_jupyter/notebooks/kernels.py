"""The notebook's own kernel: where `notebook_run` (and a session tied to a notebook) executes.

- `ServerNotebookKernels` (the Jupyter server): the kernel of the notebook's Jupyter session when one
  exists (the one Lab shows), else a session the server creates for the notebook, so Lab shows the
  notebook attached to it when the user opens it. The kernel stays the session's: the agent connects to
  it and never shuts it down.
- `LocalNotebookKernels` (the terminal app, `-p`): a kernel started for the notebook, in its folder, shut
  down with the agent's session.

Either way the kernel gets none of the agent's helpers: it is the notebook's, and what the user's cells
see there is what the agent's cells see.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any, Protocol

from prime_jupyter.kernel.managed import ManagedKernelOps, MultiKernelManagerLike
from prime_jupyter.kernel.ops import KernelError, KernelLauncher, KernelOps
from prime_jupyter.notebooks.store import LoadedNotebook

__all__ = ["LocalNotebookKernels", "NotebookKernels", "ServerNotebookKernels"]


class NotebookKernels(Protocol):
    owned: bool
    """True when the kernels are ours to shut down (started for the agent's session)."""

    def launcher(self, loaded: LoadedNotebook) -> KernelLauncher:
        """Where the notebook's kernel comes from."""
        ...

    async def attached(self, loaded: LoadedNotebook) -> str | None:
        """The kernel the notebook is attached to right now, in words; None when there is none."""
        ...


class LocalNotebookKernels:
    owned = True

    def __init__(self, launcher: KernelLauncher) -> None:
        self._launcher = launcher

    def launcher(self, loaded: LoadedNotebook) -> KernelLauncher:
        return self._launcher

    async def attached(self, loaded: LoadedNotebook) -> str | None:
        return None


class ServerNotebookKernels:
    """The notebooks' Jupyter sessions, over the server's session and kernel managers (passed as objects)."""

    owned = False

    def __init__(self, session_manager: Any, kernel_manager: Any) -> None:
        self._sessions = session_manager
        self._kernels = kernel_manager

    def launcher(self, loaded: LoadedNotebook) -> KernelLauncher:
        return _SessionLauncher(self, loaded.key)

    async def attached(self, loaded: LoadedNotebook) -> str | None:
        session = await self.session_of(loaded.key)
        if session is None:
            return None
        kernel = session["kernel"]
        state = kernel.get("execution_state", "unknown")
        return f"{kernel.get('name')} (kernel {kernel.get('id')}, {state}), the notebook's Jupyter session"

    async def session_of(self, path: str) -> dict[str, Any] | None:
        """The live Jupyter session of the notebook at `path` (an API path), if any."""
        live = set(self._kernels.list_kernel_ids())
        for session in await self._sessions.list_sessions():
            kernel = session.get("kernel") or {}
            if session.get("path") == path and kernel.get("id") in live:
                return dict(session)
        return None

    async def kernel_for(self, path: str, kernel_name: str) -> str:
        session = await self.session_of(path)
        if session is None:
            try:
                session = await self._sessions.create_session(
                    path=path, name=posixpath.basename(path), type="notebook", kernel_name=kernel_name
                )
            except Exception as error:
                raise KernelError(f"could not start the notebook's '{kernel_name}' kernel: {error}") from error
        return str(session["kernel"]["id"])

    def manager(self) -> MultiKernelManagerLike:
        return self._kernels  # type: ignore[no-any-return]


class _SessionLauncher:
    def __init__(self, owner: ServerNotebookKernels, path: str) -> None:
        self._owner = owner
        self._path = path

    async def launch(self, *, kernel_name: str, cwd: str, env: Mapping[str, str] | None = None) -> KernelOps:
        kernel_id = await self._owner.kernel_for(self._path, kernel_name)
        try:
            return await ManagedKernelOps.attach(self._owner.manager(), kernel_id)
        except KernelError:
            raise
        except Exception as error:
            raise KernelError(f"could not connect to the notebook's kernel {kernel_id}: {error}") from error
