"""The one object the notebook tools share within a session: the store, the guard's memory, the
notebooks' kernels, and the read-modify-write that never overwrites a concurrent change.

`update` loads the notebook, lets the caller compute the new content from what is there now (guard
checks included), and saves it over exactly that version; when the notebook changed in between, it
starts again from the new contents, so a user's save between our read and our write is merged with
(or, through the guard, refuses) the edit, never overwritten.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar, cast

from pydantic import JsonValue

from prime_jupyter.errors import ToolError
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner
from prime_jupyter.notebooks.cells import Notebook, ensure_ids, find_cell, kernel_name_of
from prime_jupyter.notebooks.guard import ReadMemory
from prime_jupyter.notebooks.kernels import NotebookKernels
from prime_jupyter.notebooks.store import LoadedNotebook, NotebookChangedError, NotebookStore

__all__ = ["NotebookWorkspace"]

T = TypeVar("T")
_ATTEMPTS = 5


class NotebookWorkspace:
    def __init__(
        self,
        store: NotebookStore,
        kernels: NotebookKernels,
        *,
        kernel_name: str = "python3",
        timeout_s: float = 600.0,
        provenance: Callable[[], dict[str, JsonValue]] | None = None,
    ) -> None:
        self.store = store
        self.kernels = kernels
        self.kernel_name = kernel_name
        self.timeout_s = timeout_s
        self.provenance = provenance or dict
        self.memory = ReadMemory()
        self._provisioners: dict[str, IpythonKernelProvisioner] = {}

    async def load(self, path: str) -> LoadedNotebook:
        """The notebook with an id on every cell (derived ids for a notebook that has none stored yet)."""
        loaded = await self.store.load(path)
        if loaded.content is not None:
            ensure_ids(loaded.content)
        return loaded

    async def update(
        self, path: str, change: Callable[[LoadedNotebook], tuple[Notebook, T]]
    ) -> tuple[LoadedNotebook, T]:
        """Save `change(loaded)`'s notebook over the version it was computed from; retried from fresh
        contents when someone else saved in between. `change` raises `ToolError` to write nothing."""
        for _ in range(_ATTEMPTS):
            loaded = await self.load(path)
            content, result = change(loaded)
            try:
                return await self.store.save(loaded, content), result
            except NotebookChangedError:
                await asyncio.sleep(0.05)  # someone is saving right now: let them finish
        raise ToolError(
            f"{path} kept changing while the agent tried to save it ({_ATTEMPTS} tries); nothing was written"
        )

    async def save_outputs(self, path: str, cell_id: str, outputs: list[JsonValue], count: int | None) -> None:
        """Set a code cell's outputs and execution count (a run's): directly where the store can, else
        through `update`; `ToolError` when the notebook or the cell is gone."""
        if not await self.store.write_outputs(path, cell_id, outputs, count):
            await self.update(path, _outputs_saver(cell_id, outputs, count))

    def kernel_name_for(self, loaded: LoadedNotebook) -> str:
        return (kernel_name_of(loaded.content) if loaded.content else None) or self.kernel_name

    def provisioner(self, loaded: LoadedNotebook) -> IpythonKernelProvisioner:
        """The kernel of this notebook (one per notebook per session), started on first use."""
        return self._provisioner(loaded, self.kernel_name_for(loaded))

    def provisioner_at(self, path: str) -> IpythonKernelProvisioner:
        """The kernel of the notebook at `path` (a session tied to it runs its `ipython` tool there);
        `ToolError` for a path the store may not touch."""
        key, shown, kernel_path = self.store.locate(path)
        return self._provisioner(LoadedNotebook(key, shown, None, None, kernel_path), self.kernel_name)

    def _provisioner(self, loaded: LoadedNotebook, kernel_name: str) -> IpythonKernelProvisioner:
        found = self._provisioners.get(loaded.key)
        if found is None:
            launcher = self.kernels.launcher(loaded)
            found = IpythonKernelProvisioner(launcher, loaded.kernel_path, kernel_name=kernel_name, bootstrap="")
            self._provisioners[loaded.key] = found
        return found

    async def attached(self, loaded: LoadedNotebook) -> str:
        """Which kernel the notebook works with, in words for the model."""
        found = self._provisioners.get(loaded.key)
        if found is not None and found.has_running_kernel:
            whose = "started for this notebook" if self.kernels.owned else "the notebook's Jupyter session"
            return f"{found.kernel_name} (kernel {found.kernel_id}, {found.state}), {whose}"
        described = await self.kernels.attached(loaded)
        if described is not None:
            return described
        return f"none yet: notebook_run starts the notebook's {self.kernel_name_for(loaded)} kernel"

    async def dispose(self) -> None:
        provisioners, self._provisioners = list(self._provisioners.values()), {}
        await asyncio.gather(*(p.dispose() for p in provisioners))


def _outputs_saver(
    cell_id: str, outputs: list[JsonValue], count: int | None
) -> Callable[[LoadedNotebook], tuple[Notebook, None]]:
    def save(loaded: LoadedNotebook) -> tuple[Notebook, None]:
        if loaded.content is None:
            raise ToolError(f"{loaded.shown} was deleted or renamed during the run")
        _, cell = find_cell(loaded.content, cell_id)
        cell["outputs"] = cast(JsonValue, outputs)
        cell["execution_count"] = count
        return loaded.content, None

    return save
