"""ManagedKernelOps against a kernel that other clients share (as a Lab console would)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from jupyter_client.multikernelmanager import AsyncMultiKernelManager
from jupyter_core.paths import jupyter_runtime_dir
from kit.kernels import text_of, tool_runner

from prime_jupyter.kernel.managed import ManagedKernelOps, launch_managed
from prime_jupyter.kernel.outputs import OutputAccumulator
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner

pytestmark = pytest.mark.asyncio(loop_scope="module")


class ManagerLauncher:
    """Kernels of a manager the test can also reach, to connect foreign clients."""

    def __init__(self) -> None:
        self.manager = AsyncMultiKernelManager(connection_dir=jupyter_runtime_dir())

    async def launch(self, *, kernel_name: str, cwd: str, env: Mapping[str, str] | None = None) -> ManagedKernelOps:
        return await launch_managed(self.manager, kernel_name=kernel_name, cwd=cwd)


async def _reply_to(client: Any, msg_id: str) -> dict[str, Any]:
    """The content of the foreign client's shell reply to `msg_id` (earlier replies skipped)."""
    while True:
        reply = await client.shell_channel.get_msg(timeout=10)
        if reply["parent_header"]["msg_id"] == msg_id:
            return reply["content"]  # type: ignore[no-any-return]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def setup(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[IpythonKernelProvisioner, Any]]:
    launcher = ManagerLauncher()
    provisioner = IpythonKernelProvisioner(launcher, tmp_path_factory.mktemp("managed"))
    ops = await provisioner.ensure()
    foreign = launcher.manager.get_kernel(ops.kernel_id).client()
    foreign.start_channels()
    await foreign.wait_for_ready(timeout=30)
    yield provisioner, foreign
    foreign.stop_channels()
    await provisioner.dispose()


async def test_a_foreign_execution_does_not_leak_into_the_result(setup: tuple[IpythonKernelProvisioner, Any]) -> None:
    provisioner, foreign = setup
    foreign.execute("import time\nfor i in range(5):\n    print('FOREIGN', i, flush=True)\n    time.sleep(0.05)")
    result = await tool_runner(provisioner)("print('mine')")
    assert text_of(result) == "mine" and "FOREIGN" not in str(result.details)


async def test_the_foreign_client_still_gets_its_own_reply(setup: tuple[IpythonKernelProvisioner, Any]) -> None:
    provisioner, foreign = setup
    msg_id = foreign.execute("40 + 2")
    await tool_runner(provisioner)("print('mine')")
    assert (await _reply_to(foreign, msg_id))["status"] == "ok"


async def test_the_foreign_client_can_see_the_agents_variables(setup: tuple[IpythonKernelProvisioner, Any]) -> None:
    provisioner, foreign = setup
    await tool_runner(provisioner)("shared_value = 1234")
    msg_id = foreign.execute("", user_expressions={"v": "shared_value"})
    reply = await _reply_to(foreign, msg_id)
    assert reply["user_expressions"]["v"]["data"]["text/plain"] == "1234"


async def test_silent_executions_do_not_count(setup: tuple[IpythonKernelProvisioner, Any]) -> None:
    provisioner, _ = setup
    ops = await provisioner.ensure()
    before = (await ops.execute("1", OutputAccumulator().add)).execution_count
    await ops.execute("2", OutputAccumulator().add, silent=True)
    after = (await ops.execute("3", OutputAccumulator().add)).execution_count
    assert after == (before or 0) + 1


async def test_kernel_info_describes_the_kernel(setup: tuple[IpythonKernelProvisioner, Any]) -> None:
    provisioner, _ = setup
    info = await (await provisioner.ensure()).kernel_info()
    assert (info.language, info.implementation, info.kernel_name) == ("python", "ipython", "python3")


async def test_outputs_are_read_with_their_own_msg_id_only(
    tmp_path: Path, setup: tuple[IpythonKernelProvisioner, Any]
) -> None:
    provisioner, foreign = setup
    ops = await provisioner.ensure()
    foreign.execute("print('early foreign')")
    outputs = OutputAccumulator()
    await ops.execute("print('ours')", outputs.add)
    assert [o.get("text") for o in outputs.outputs()] == ["ours\n"]
