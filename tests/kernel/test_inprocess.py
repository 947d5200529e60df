"""The in-process kernel (the notebook's own shell), on a plain IPython shell."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import signal
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from IPython.core.interactiveshell import InteractiveShell
from kit.kernels import status_of, text_of, tool_runner
from traitlets.config import Config

from prime_jupyter.agent.tool import AgentToolResult
from prime_jupyter.ai.abort import AbortController
from prime_jupyter.kernel.inprocess import InProcessLauncher, ShellChannel
from prime_jupyter.kernel.ops import KernelError
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner

T = TypeVar("T")


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    shell = InteractiveShell.instance(config=Config({"HistoryManager": {"enabled": False}}))
    yield shell  # the singleton: IPython's display() publishes through it
    shell.cleanup()
    InteractiveShell.clear_instance()


@pytest.fixture
def provisioner(shell: Any, tmp_path: Path) -> IpythonKernelProvisioner:
    return IpythonKernelProvisioner(InProcessLauncher(shell), tmp_path)


@pytest.mark.asyncio
async def test_code_runs_in_the_shells_namespace(shell: Any, provisioner: IpythonKernelProvisioner) -> None:
    result = await tool_runner(provisioner)("x = 5\nprint('hi', x)\nx * 2")
    assert text_of(result) == "hi 5\nOut[1]: 10" and shell.user_ns["x"] == 5


@pytest.mark.asyncio
async def test_each_output_is_reported_once_in_its_own_kind(provisioner: IpythonKernelProvisioner) -> None:
    code = (
        "import sys\nfrom IPython.display import display, HTML\n"
        "print('o')\nprint('e', file=sys.stderr)\ndisplay(HTML('<b>x</b>'))\n1/0"
    )
    result = await tool_runner(provisioner)(code)
    kinds = [output["output_type"] for output in result.details["outputs"]]  # type: ignore[index,union-attr]
    assert kinds == ["stream", "stream", "display_data", "error"] and status_of(result) == "error"


@pytest.mark.asyncio
async def test_the_helpers_are_lent_under_one_name_while_the_agents_code_runs(
    shell: Any, provisioner: IpythonKernelProvisioner, tmp_path: Path
) -> None:
    """Regression (issue 25): the bootstrap put `edit` and `attach_image` into the user's namespace
    (over their own variables) and replaced IPython's `%%bash` for good."""
    bash = shell.find_cell_magic("bash")
    shell.user_ns["edit"] = "the user's"
    run = tool_runner(provisioner)
    target = tmp_path / "notes.txt"
    result = await run(f"__prime__.edit({str(target)!r}, '', 'hello\\n')\nprint(sorted(vars(__prime__)))")
    assert target.read_text() == "hello\n" and "['attach_image', 'edit']" in text_of(result)
    assert "__prime__" not in shell.user_ns and "__prime__" not in shell.user_ns_hidden
    assert shell.user_ns["edit"] == "the user's" and "attach_image" not in shell.user_ns
    assert shell.find_cell_magic("bash") is bash  # IPython's own, which fails the cell on a non-zero exit
    failed = await run("%%bash\necho b\nexit 2")
    assert status_of(failed) == "error" and "returned non-zero exit status 2" in text_of(failed)


@pytest.mark.asyncio
async def test_what_the_agents_code_binds_to_the_helpers_name_stays(
    shell: Any, provisioner: IpythonKernelProvisioner
) -> None:
    shell.user_ns["__prime__"] = "the user's"
    await tool_runner(provisioner)("seen = __prime__.edit.__name__")
    assert shell.user_ns["__prime__"] == "the user's" and shell.user_ns["seen"] == "edit"
    await tool_runner(provisioner)("__prime__ = 'the agent'")
    assert shell.user_ns["__prime__"] == "the agent"


@pytest.mark.asyncio
async def test_the_notebooks_kernel_is_never_restarted(provisioner: IpythonKernelProvisioner) -> None:
    ops = await provisioner.ensure()
    with pytest.raises(KernelError, match="restart it from the notebook"):
        await ops.restart()


# --- handed over: the agent's loop on a worker thread, the code on the (main) thread pumping the channel


def _pumped(channel: ShellChannel, work: Callable[[], Coroutine[Any, Any, T]], on_interrupt: Callable[[], object]) -> T:
    """Run `work()` on a fresh event loop in a worker thread (where the agent loop runs in a notebook)
    while this (main) thread pumps `channel`, as a `%%prime` cell does."""
    future: concurrent.futures.Future[T] = concurrent.futures.Future()

    def main() -> None:
        try:
            future.set_result(asyncio.run(work()))
        except BaseException as error:
            future.set_exception(error)

    with channel.open(on_interrupt):
        threading.Thread(target=main, daemon=True).start()
        channel.run_until(future)
    if channel.user_interrupted:
        raise KeyboardInterrupt
    return future.result()


@pytest.fixture
def channel() -> ShellChannel:
    return ShellChannel()


@pytest.fixture
def handed(shell: Any, channel: ShellChannel, tmp_path: Path) -> IpythonKernelProvisioner:
    return IpythonKernelProvisioner(InProcessLauncher(shell, channel), tmp_path)


def test_code_runs_on_the_pumping_thread(shell: Any, channel: ShellChannel, handed: IpythonKernelProvisioner) -> None:
    code = "import threading\nran_on = threading.get_ident()\nprint('hi')"
    result = _pumped(channel, lambda: tool_runner(handed)(code), on_interrupt=lambda: None)
    assert text_of(result) == "hi" and shell.user_ns["ran_on"] == threading.get_ident()


def test_the_time_limit_interrupts_the_code_and_keeps_the_state(
    shell: Any, channel: ShellChannel, handed: IpythonKernelProvisioner
) -> None:
    interrupted: list[bool] = []
    code = "kept = 1\nimport time\nwhile True: time.sleep(0.05)"
    result = _pumped(channel, lambda: tool_runner(handed, timeout_s=0.3)(code), lambda: interrupted.append(True))
    assert status_of(result) == "timeout" and shell.user_ns["kept"] == 1 and interrupted == []  # not the user's


def test_the_users_interrupt_calls_back_and_is_raised_once_the_run_is_over(
    channel: ShellChannel, handed: IpythonKernelProvisioner
) -> None:
    controller = AbortController()
    code = "import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\ntime.sleep(5)"  # the stop button
    with pytest.raises(KeyboardInterrupt):
        _pumped(channel, lambda: tool_runner(handed)(code, controller=controller), on_interrupt=controller.abort)
    assert controller.signal.aborted


def test_code_handed_over_while_nobody_pumps_fails_at_once(channel: ShellChannel) -> None:
    with pytest.raises(KernelError, match="only while a %%prime cell"):
        channel.call(lambda: 1).result(timeout=5)


def test_after_the_users_interrupt_between_calls_the_time_limit_still_stops_code(
    channel: ShellChannel, handed: IpythonKernelProvisioner
) -> None:
    """Regression: once the user had interrupted, the agent's own interrupts were no longer sent."""

    results: list[AgentToolResult] = []

    async def work() -> None:
        channel.post(lambda: os.kill(os.getpid(), signal.SIGINT))  # lands on the pumping thread, between calls
        results.append(await tool_runner(handed, timeout_s=0.3)("import time\nwhile True: time.sleep(0.01)"))

    interrupted: list[bool] = []
    with pytest.raises(KeyboardInterrupt):
        _pumped(channel, work, on_interrupt=lambda: interrupted.append(True))
    assert interrupted == [True] and "was interrupted; the kernel's state is kept" in text_of(results[0])
