"""The process-wide `LocalKernelLauncher` (one `AsyncMultiKernelManager` for all sessions of the process),
where a session's kernels come from when its host passed no `KernelLauncher` of its own (the server
passes a `ServerKernelLauncher`, a notebook its own shell)."""

from __future__ import annotations

from prime_jupyter.kernel.local import LocalKernelLauncher

__all__ = ["shared_local_launcher"]

_shared: LocalKernelLauncher | None = None


def shared_local_launcher() -> LocalKernelLauncher:
    """The process's local launcher; its kernels are shut down by their sessions, or at exit by the reaper."""
    global _shared
    if _shared is None:
        _shared = LocalKernelLauncher()
    return _shared
