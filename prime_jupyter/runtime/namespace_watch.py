"""The agent knows what its kernel holds, and the user sees what a turn did to it.

Before a run, when the session's kernel is running and idle, its namespace is read (`kernel.namespace`);
when the summary differs from the one the model was last given, it goes into the transcript as a hidden
custom message the model reads before the prompt. After the run it is read again, and what the agent's
code created, changed or deleted is told to every surface ("created `df_clean` (DataFrame 1,203x14)").
Nothing here starts a kernel or waits on a busy one: a run that never used the kernel costs nothing.
"""

from __future__ import annotations

import asyncio
import logging

from prime_jupyter.kernel.namespace import Namespace, NamespaceChange, changes, describe, read_namespace
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner

__all__ = ["NAMESPACE_MESSAGE", "NamespaceWatch"]

log = logging.getLogger(__name__)

NAMESPACE_MESSAGE = "prime.kernel-namespace"
"""The custom message type of the summary the model is given."""
_READ_TIMEOUT_S = 5.0


class NamespaceWatch:
    def __init__(self, provisioner: IpythonKernelProvisioner) -> None:
        self._kernel = provisioner
        self._told: str | None = None
        self._before: Namespace | None = None

    async def read(self) -> Namespace | None:
        """The namespace now; None when no kernel is running, it is busy, or it cannot say."""
        kernel = self._kernel
        if not kernel.has_running_kernel or kernel.lock.locked():
            return None
        async with kernel.lock:
            try:
                ops = await kernel.ensure()
                return await asyncio.wait_for(read_namespace(ops), _READ_TIMEOUT_S)
            except Exception as error:  # a summary is a courtesy: never fail a turn for it
                log.info("could not read the kernel's namespace: %s", error)
                return None

    async def before_run(self) -> str | None:
        """The summary for the model, when it changed since it was last given; remembers the namespace."""
        namespace = await self.read()
        own_fresh_kernel = namespace is None and bool(self._kernel.bootstrap)
        self._before = {} if own_fresh_kernel else namespace  # our own kernel, not started: nothing in it
        if namespace is None:
            return None
        text = describe(namespace)
        first_and_empty = self._told is None and not namespace  # nothing worth a message yet
        if text == self._told or first_and_empty:
            self._told = text
            return None
        self._told = text
        return text

    async def after_run(self) -> NamespaceChange | None:
        """What the run's code did to the namespace (None: unknown, or nothing)."""
        before, self._before = self._before, None
        if before is None:
            return None
        after = await self.read()
        if after is None:
            return None
        self._told = describe(after) if self._told is not None else None
        found = changes(before, after)
        return found or None
