"""Kernel lifecycle per session: start once and share, retry a failed start, prewarm, dispose."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

import pytest
from kit.kernels import kernel_processes, text_of, tool_runner

from prime_jupyter.ai.abort import AbortController
from prime_jupyter.errors import BusyError
from prime_jupyter.kernel.local import LocalKernelLauncher
from prime_jupyter.kernel.managed import ManagedKernelOps
from prime_jupyter.kernel.ops import KernelError
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner
from prime_jupyter.tools.ipython import IPYTHON_TOOL_PROMPT, IpythonParams, make_kernel_tool

pytestmark = pytest.mark.asyncio(loop_scope="module")


class CountingLauncher:
    """The real local launcher, counting how often it is asked for a kernel."""

    def __init__(self, inner: LocalKernelLauncher) -> None:
        self.inner, self.launches = inner, 0

    async def launch(self, *, kernel_name: str, cwd: str, env: Mapping[str, str] | None = None) -> ManagedKernelOps:
        self.launches += 1
        return await self.inner.launch(kernel_name=kernel_name, cwd=cwd, env=env)


async def _pid(provisioner: IpythonKernelProvisioner) -> int:
    return int(text_of(await tool_runner(provisioner)("import os\nos.getpid()")).rsplit(" ", 1)[1])


async def test_concurrent_callers_share_one_start(launcher: LocalKernelLauncher, tmp_path: Path) -> None:
    counting = CountingLauncher(launcher)
    provisioner = IpythonKernelProvisioner(counting, tmp_path)
    try:
        first, second = await asyncio.gather(provisioner.ensure(), provisioner.ensure())
        assert first is second and counting.launches == 1
    finally:
        await provisioner.dispose()


async def test_a_failed_start_is_forgotten_and_retried(launcher: LocalKernelLauncher, tmp_path: Path) -> None:
    provisioner = IpythonKernelProvisioner(launcher, tmp_path / "later")
    try:
        with pytest.raises(KernelError, match="could not start the 'python3' kernel"):
            await provisioner.ensure()
        (tmp_path / "later").mkdir()
        assert (await provisioner.ensure()).kernel_id
    finally:
        await provisioner.dispose()


async def test_an_unknown_kernel_name_is_reported(launcher: LocalKernelLauncher, tmp_path: Path) -> None:
    provisioner = IpythonKernelProvisioner(launcher, tmp_path, kernel_name="no-such-kernel")
    with pytest.raises(KernelError, match="no-such-kernel"):
        await provisioner.ensure()
    await provisioner.dispose()


async def test_prewarm_starts_in_the_background_and_ensure_reuses_it(
    launcher: LocalKernelLauncher, tmp_path: Path
) -> None:
    counting = CountingLauncher(launcher)
    provisioner = IpythonKernelProvisioner(counting, tmp_path)
    try:
        provisioner.prewarm()
        assert not provisioner.has_running_kernel
        await provisioner.ensure()
        assert provisioner.has_running_kernel and counting.launches == 1
    finally:
        await provisioner.dispose()


async def test_progress_is_reported_while_starting(launcher: LocalKernelLauncher, tmp_path: Path) -> None:
    provisioner = IpythonKernelProvisioner(launcher, tmp_path)
    stages: list[str] = []
    try:
        await provisioner.ensure(stages.append)
        assert stages == ["Starting IPython kernel (python3)...", "Preparing IPython runtime..."]
    finally:
        await provisioner.dispose()


async def test_dispose_shuts_the_kernel_down_for_good(launcher: LocalKernelLauncher, tmp_path: Path) -> None:
    provisioner = IpythonKernelProvisioner(launcher, tmp_path)
    pid = await _pid(provisioner)
    await provisioner.dispose()
    assert pid not in kernel_processes()
    with pytest.raises(KernelError, match="closed"):
        await provisioner.ensure()


async def test_dispose_while_starting_leaves_no_kernel(launcher: LocalKernelLauncher, tmp_path: Path) -> None:
    before = set(kernel_processes())
    provisioner = IpythonKernelProvisioner(launcher, tmp_path)
    provisioner.prewarm()
    await asyncio.sleep(0)
    await provisioner.dispose()
    assert set(kernel_processes()) - before == set()


async def test_two_sessions_run_separate_kernels_at_once(launcher: LocalKernelLauncher, tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    one = IpythonKernelProvisioner(launcher, tmp_path / "one")
    two = IpythonKernelProvisioner(launcher, tmp_path / "two")
    code = "import os\nsecret = os.path.basename(os.getcwd())\nprint(os.getpid(), secret)"
    try:
        first, second = await asyncio.gather(tool_runner(one)(code), tool_runner(two)(code))
        (pid1, cwd1), (pid2, cwd2) = text_of(first).split(), text_of(second).split()
        assert pid1 != pid2 and (cwd1, cwd2) == ("one", "two")
        assert text_of(await tool_runner(two)("secret")).endswith("'two'")
    finally:
        await asyncio.gather(one.dispose(), two.dispose())


async def test_a_failing_bootstrap_keeps_the_kernel_and_says_why(launcher: LocalKernelLauncher, tmp_path: Path) -> None:
    provisioner = IpythonKernelProvisioner(launcher, tmp_path, bootstrap="1 / 0")
    try:
        await provisioner.ensure()
        assert provisioner.bootstrap_error == "ZeroDivisionError: division by zero"
        assert text_of(await tool_runner(provisioner)("2 + 2")).endswith("4")
    finally:
        await provisioner.dispose()


async def test_a_kernel_dying_while_prepared_is_not_kept(launcher: LocalKernelLauncher, tmp_path: Path) -> None:
    before = set(kernel_processes())
    provisioner = IpythonKernelProvisioner(launcher, tmp_path, bootstrap="import os\nos._exit(1)")
    with pytest.raises(KernelError, match="exited with status 1"):
        await provisioner.ensure()
    assert set(kernel_processes()) - before == set() and not provisioner.has_running_kernel
    await provisioner.dispose()


async def test_make_kernel_tool_builds_a_session_tool_on_the_shared_launcher(tmp_path: Path) -> None:
    tool, guidance, provisioner = make_kernel_tool(cwd=tmp_path, accepts_images=False)
    try:
        result = await tool.execute("c", IpythonParams(code="print('hi')"), AbortController().signal, lambda _u: None)
        assert text_of(result) == "hi" and guidance == IPYTHON_TOOL_PROMPT and tool.name == "ipython"
    finally:
        await provisioner.dispose()


async def test_a_released_kernel_is_replaced_on_demand_with_a_notice(
    launcher: LocalKernelLauncher, tmp_path: Path
) -> None:
    """Idle culling (issue 15) releases the kernel; the session's next call starts a fresh one."""
    counting = CountingLauncher(launcher)
    provisioner = IpythonKernelProvisioner(counting, tmp_path)
    try:
        before = await _pid(provisioner)
        assert await provisioner.release("culled: state gone") and provisioner.state == "stopped"
        assert not await provisioner.release("twice")  # nothing left to release
        assert await _pid(provisioner) != before and counting.launches == 2
    finally:
        await provisioner.dispose()


async def test_a_kernel_running_code_is_not_released(launcher: LocalKernelLauncher, tmp_path: Path) -> None:
    provisioner = IpythonKernelProvisioner(launcher, tmp_path)
    try:
        await provisioner.ensure()
        async with provisioner.lock:
            assert not await provisioner.release("culled")
        assert provisioner.state == "idle"
    finally:
        await provisioner.dispose()


async def test_a_restart_asked_for_loses_the_state_and_tells_the_model(
    launcher: LocalKernelLauncher, tmp_path: Path
) -> None:
    """`/kernel restart`: the same kernel restarted in place, idle again, its variables gone, the model told."""
    provisioner = IpythonKernelProvisioner(launcher, tmp_path)
    run = tool_runner(provisioner)
    try:
        assert not await provisioner.interrupt()  # no kernel yet: nothing to interrupt
        await run("x = 41")
        kernel_id = provisioner.kernel_id
        async with provisioner.lock:  # code running on it
            with pytest.raises(BusyError, match="interrupt it"):
                await provisioner.restart("restarted by the user")
        await provisioner.restart("restarted by the user")
        assert provisioner.state == "idle" and provisioner.kernel_id == kernel_id
        after = text_of(await run("x"))
        assert "restarted by the user" in after and "NameError" in after
    finally:
        await provisioner.dispose()
