"""Last-resort cleanup: no kernel started by this process outlives it.

`ops.shutdown()` is the normal way out. For the abnormal ones, every kernel process we start is tracked
here and killed, with its whole process group (shell commands it started included), by an `atexit`
hook, or by `reap_all()`, which is plain synchronous code a signal handler may call. A host killed with
SIGKILL is covered by ipykernel itself: jupyter_client passes `JPY_PARENT_PID`, and the kernel exits when
its parent is gone.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import threading
from typing import Protocol

__all__ = ["reap_all", "reap_one", "track", "untrack"]


class _HasProvisioner(Protocol):
    provisioner: object


_tracked: dict[int, _HasProvisioner] = {}
_lock = threading.Lock()
_registered = False


def track(kernel_manager: _HasProvisioner) -> None:
    """Remember a started kernel (a jupyter_client `KernelManager`) until `untrack`."""
    global _registered
    with _lock:
        _tracked[id(kernel_manager)] = kernel_manager
        if not _registered:
            atexit.register(reap_all)
            _registered = True


def untrack(kernel_manager: _HasProvisioner) -> None:
    with _lock:
        _tracked.pop(id(kernel_manager), None)


def reap_all() -> None:
    """Kill every tracked kernel process that is still running. Contract: must not raise."""
    with _lock:
        managers = list(_tracked.values())
        _tracked.clear()
    for manager in managers:
        _kill(getattr(manager.provisioner, "process", None))


def reap_one(kernel_manager: _HasProvisioner) -> None:
    """Kill one kernel's process group now and forget it. Contract: must not raise."""
    untrack(kernel_manager)
    _kill(getattr(kernel_manager.provisioner, "process", None))


def _kill(process: object) -> None:
    if not isinstance(process, subprocess.Popen) or process.poll() is not None:
        return  # only a child we have not reaped yet: its pid cannot have been reused
    with contextlib.suppress(OSError):
        if os.getpgid(process.pid) == process.pid:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        process.wait(timeout=1)
