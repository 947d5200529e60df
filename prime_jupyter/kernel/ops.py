"""The kernel seam: `KernelOps` is one running kernel, `KernelLauncher` starts them.

Implementations:

- `managed.ManagedKernelOps`, over any jupyter_client multi-kernel manager: the Jupyter server's own
  `serverapp.kernel_manager` (`server.ServerKernelLauncher`, so the agent's kernel is listed in
  `/api/kernels`) or a private `AsyncMultiKernelManager` (`local.LocalKernelLauncher`, `jupyter prime`);
- `inprocess.InProcessKernelOps`, on the running IPython shell (`%%prime` in a notebook).

The operations are deliberately small and mechanical. Policy (time limit, abort, a kernel that died or
stays busy after an interrupt) is written once above this seam, in `execution.py`, and lifecycle (start
once, share, replace, dispose) in `provisioner.py`.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias

from pydantic import JsonValue

from prime_jupyter.errors import KernelDiedError, KernelError

__all__ = [
    "ExecuteReply",
    "KernelDiedError",
    "KernelError",
    "KernelInfo",
    "KernelLauncher",
    "KernelOps",
    "OutputMessage",
    "OutputSink",
    "describe_exit",
]


@dataclass(frozen=True, slots=True)
class OutputMessage:
    """One output-bearing iopub message of an execution, content as the kernel sent it.

    `msg_type` is one of `stream`, `display_data`, `update_display_data`, `execute_result`, `error`,
    `clear_output`; `outputs.OutputAccumulator` folds them into nbformat outputs.
    """

    msg_type: str
    content: dict[str, JsonValue]


OutputSink: TypeAlias = Callable[[OutputMessage], None]


@dataclass(frozen=True, slots=True)
class ExecuteReply:
    """How an execution ended, from the kernel's `execute_reply`."""

    status: Literal["ok", "error", "aborted"]
    execution_count: int | None


@dataclass(frozen=True, slots=True)
class KernelInfo:
    kernel_id: str
    kernel_name: str
    language: str
    language_version: str
    implementation: str
    protocol_version: str


class KernelOps(Protocol):
    """One running kernel. Not safe for concurrent `execute` calls: callers serialise them."""

    @property
    def kernel_id(self) -> str: ...

    async def execute(self, code: str, sink: OutputSink, *, silent: bool = False) -> ExecuteReply:
        """Run `code`, passing each output to `sink`, and return once the kernel is idle again.

        Cancelling the call stops the waiting, not the code (use `interrupt`); `wait_idle` later waits
        for that abandoned execution. Raises `KernelDiedError` when the kernel dies meanwhile.
        """
        ...

    async def wait_idle(self, seconds: float) -> bool:
        """Wait up to `seconds` for an abandoned execution to finish; True when none is running."""
        ...

    async def interrupt(self) -> None: ...

    async def restart(self) -> None:
        """Leave a fresh, connected kernel process behind (all state lost)."""
        ...

    async def shutdown(self) -> None:
        """Stop the kernel and release it. Contract: must not raise."""
        ...

    async def is_alive(self) -> bool: ...

    async def kernel_info(self) -> KernelInfo: ...


class KernelLauncher(Protocol):
    """Starts kernels; one launcher serves many sessions."""

    async def launch(self, *, kernel_name: str, cwd: str, env: Mapping[str, str] | None = None) -> KernelOps:
        """Start a kernel in `cwd` and return it connected and ready; raises `KernelError`."""
        ...


def describe_exit(code: int | None) -> str:
    """A sentence fragment saying how a kernel process ended, for the model and the user."""
    if code is None:
        return "the kernel process is gone"
    if code >= 0:
        return f"the kernel process exited with status {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    hint = " (often the system running out of memory)" if -code == signal.SIGKILL else ""
    return f"the kernel process was killed by {name}{hint}"
