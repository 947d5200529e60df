"""Fixtures for the kernel layer: real ipykernel kernels, and a check that none outlives the tests."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
from kit.kernels import kernel_processes

from prime_jupyter.kernel.local import LocalKernelLauncher
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner


@pytest.fixture(scope="session", autouse=True)
def no_kernel_left_behind() -> Iterator[None]:
    """After all kernel tests, no kernel process started by them may still be running."""
    yield
    deadline = time.monotonic() + 10
    while kernel_processes() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert kernel_processes() == []


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def launcher() -> AsyncIterator[LocalKernelLauncher]:
    launcher = LocalKernelLauncher()
    yield launcher
    await launcher.aclose()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shared(
    launcher: LocalKernelLauncher, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[IpythonKernelProvisioner]:
    """One kernel shared by the tests of a module that do not break it."""
    provisioner = IpythonKernelProvisioner(launcher, tmp_path_factory.mktemp("shared"))
    yield provisioner
    await provisioner.dispose()
