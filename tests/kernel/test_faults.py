"""Where the original failed its users: every test here breaks its own kernel."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from kit.kernels import status_of, text_of, tool_runner

from prime_jupyter.agent.tool import AgentToolResult
from prime_jupyter.ai.abort import AbortController
from prime_jupyter.kernel.execution import run_cell
from prime_jupyter.kernel.local import LocalKernelLauncher
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner

pytestmark = pytest.mark.asyncio(loop_scope="module")

IGNORE_SIGINT = "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('stubborn', flush=True)\n"


@pytest_asyncio.fixture(loop_scope="module")
async def own(launcher: LocalKernelLauncher, tmp_path: Path) -> AsyncIterator[IpythonKernelProvisioner]:
    provisioner = IpythonKernelProvisioner(launcher, tmp_path, busy_grace_s=1.0)
    yield provisioner
    await provisioner.dispose()


def _abort_on_first_output(controller: AbortController) -> list[AgentToolResult]:
    """An update list that aborts the run as soon as the code printed something."""

    class Updates(list[AgentToolResult]):
        def append(self, update: AgentToolResult) -> None:
            super().append(update)
            if status_of(update) == "running":
                controller.abort()

    return Updates()


async def test_the_time_limit_interrupts_and_keeps_the_state(own: IpythonKernelProvisioner) -> None:
    run = tool_runner(own, timeout_s=1)
    await run("kept = 'yes'")
    result = await run("import time\nwhile True: time.sleep(0.05)")
    assert status_of(result) == "timeout" and "time limit of 1 s and was interrupted" in text_of(result)
    assert "KeyboardInterrupt" in text_of(result)
    assert text_of(await run("kept")).endswith("'yes'")


async def test_code_that_ignores_the_interrupt_gets_its_kernel_restarted(own: IpythonKernelProvisioner) -> None:
    await tool_runner(own)("kept = 1")
    run = await run_cell(own, IGNORE_SIGINT + "while True: time.sleep(0.05)", timeout_s=1, interrupt_grace_s=0.5)
    assert run.status == "timeout" and "the kernel was restarted" in run.notices[0]
    after = await tool_runner(own)("kept")
    assert "NameError" in text_of(after)


async def test_abort_interrupts_a_loop_and_keeps_the_state(own: IpythonKernelProvisioner) -> None:
    run, controller = tool_runner(own), AbortController()
    await run("kept = 2")
    code = "import time\nfor i in range(10_000):\n    print(i, flush=True)\n    time.sleep(0.05)"
    result = await run(code, controller=controller, updates=_abort_on_first_output(controller))
    assert status_of(result) == "aborted" and "KeyboardInterrupt" in text_of(result)
    assert text_of(await run("kept")).endswith("2")


async def test_abort_settles_even_when_the_code_ignores_it(own: IpythonKernelProvisioner) -> None:
    run, controller = tool_runner(own), AbortController()
    code = IGNORE_SIGINT + "while True: time.sleep(0.05)"
    result = await run(code, controller=controller, updates=_abort_on_first_output(controller))
    assert status_of(result) == "aborted" and "had not stopped" in text_of(result)
    after = await run("print('fresh')")
    assert "the kernel was restarted" in text_of(after) and text_of(after).endswith("fresh")


async def test_a_kernel_that_exits_is_replaced_and_the_model_told(own: IpythonKernelProvisioner) -> None:
    run = tool_runner(own)
    await run("kept = 3")
    died = await run("import os\nos._exit(7)")
    assert status_of(died) == "died" and "exited with status 7" in text_of(died)
    after = await run("'kept' in globals()")
    assert "the previous one died" in text_of(after) and "variables" in text_of(after)
    assert text_of(after).endswith("False") and status_of(after) == "ok"


async def test_a_segfault_is_a_death_too(own: IpythonKernelProvisioner) -> None:
    run = tool_runner(own)
    died = await run("import ctypes\nctypes.string_at(0)")
    assert status_of(died) == "died" and "SIGSEGV" in text_of(died)
    assert text_of(await run("1 + 1")).endswith("2")


async def test_a_kernel_killed_between_calls_is_replaced_before_the_code_runs(own: IpythonKernelProvisioner) -> None:
    run = tool_runner(own)
    pid = int(text_of(await run("import os\nos.getpid()")).rsplit(" ", 1)[1])
    os.kill(pid, signal.SIGKILL)
    await asyncio.sleep(0.2)  # let the process go; the next call must not depend on noticing it mid-run
    result = await run("print('ran')")
    assert "had stopped since the last call" in text_of(result) and text_of(result).endswith("ran")


async def test_a_kernel_never_stays_shut_down(own: IpythonKernelProvisioner) -> None:
    """Upstream bug #1668: after an unexpected exit the tool stayed 'shut down' for good."""
    run = tool_runner(own)
    for _ in range(3):
        assert status_of(await run("import os\nos._exit(1)")) == "died"
    assert status_of(await run("1")) == "ok"


async def test_outputs_before_a_death_are_kept(own: IpythonKernelProvisioner) -> None:
    result = await tool_runner(own)("print('last words', flush=True)\nimport time, os\ntime.sleep(0.3)\nos._exit(1)")
    assert "last words" in text_of(result) and status_of(result) == "died"
