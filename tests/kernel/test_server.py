"""Kernels of a real Jupyter server's kernel manager (pytest-jupyter's `jp_serverapp`).

These coroutine tests are deliberately not marked for pytest-asyncio: pytest-jupyter runs them on the
loop its server lives on, which `jp_fetch` needs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kit.kernels import status_of, text_of, tool_runner

from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner
from prime_jupyter.kernel.server import ServerKernelLauncher


def _provisioner(jp_serverapp: Any, cwd: Path) -> IpythonKernelProvisioner:
    return IpythonKernelProvisioner(ServerKernelLauncher(jp_serverapp.kernel_manager), cwd)


async def test_the_agents_kernel_is_listed_by_the_server(jp_serverapp: Any, jp_fetch: Any, tmp_path: Path) -> None:
    provisioner = _provisioner(jp_serverapp, tmp_path)
    try:
        result = await tool_runner(provisioner)("import os\nprint(os.getcwd())\n1 + 1")
        assert text_of(result).startswith(str(tmp_path)) and text_of(result).endswith("2")
        listed = json.loads((await jp_fetch("api", "kernels")).body)
        assert provisioner.kernel_id in [kernel["id"] for kernel in listed]
    finally:
        await provisioner.dispose()
    assert provisioner.kernel_id not in jp_serverapp.kernel_manager.list_kernel_ids()


async def test_a_death_restarts_the_same_server_kernel(jp_serverapp: Any, tmp_path: Path) -> None:
    provisioner = _provisioner(jp_serverapp, tmp_path)
    run = tool_runner(provisioner)
    try:
        await run("1")
        kernel_id = provisioner.kernel_id
        assert status_of(await run("import os\nos._exit(1)")) == "died"
        after = await run("print('back')")
        assert text_of(after).endswith("back") and provisioner.kernel_id == kernel_id  # a console stays attached
    finally:
        await provisioner.dispose()


async def test_a_kernel_shut_down_from_lab_is_replaced(jp_serverapp: Any, jp_fetch: Any, tmp_path: Path) -> None:
    provisioner = _provisioner(jp_serverapp, tmp_path)
    run = tool_runner(provisioner)
    try:
        await run("x = 1")
        await jp_fetch("api", "kernels", provisioner.kernel_id, method="DELETE")
        after = await run("'x' in globals()")
        assert "had stopped since the last call" in text_of(after) and text_of(after).endswith("False")
        assert provisioner.kernel_id in jp_serverapp.kernel_manager.list_kernel_ids()
    finally:
        await provisioner.dispose()
