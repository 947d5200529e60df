"""Last-resort cleanup, outside any event loop (as at interpreter exit or in a signal handler)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from kit.kernels import text_of, tool_runner

from prime_jupyter.kernel.local import LocalKernelLauncher
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner
from prime_jupyter.kernel.reaper import reap_all


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_reap_all_kills_kernels_and_what_they_started(tmp_path: Path) -> None:
    async def start() -> tuple[int, int]:
        provisioner = IpythonKernelProvisioner(LocalKernelLauncher(), tmp_path)
        result = await tool_runner(provisioner)(
            "import os, subprocess\nos.getpid(), subprocess.Popen(['sleep', '60']).pid"
        )
        kernel, child = text_of(result).split("(", 1)[1].rstrip(")").split(", ")
        return int(kernel), int(child)

    kernel, child = asyncio.run(start())  # the session is never disposed: as if the host were exiting
    assert _alive(kernel) and _alive(child)
    reap_all()
    assert not _alive(kernel) and not _alive(child)


def test_prewarm_without_an_event_loop_leaves_the_start_to_ensure(tmp_path: Path) -> None:
    provisioner = IpythonKernelProvisioner(LocalKernelLauncher(), tmp_path)
    provisioner.prewarm()
    assert not provisioner.has_running_kernel and os.listdir(tmp_path) == []
