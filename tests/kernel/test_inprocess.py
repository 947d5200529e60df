"""The in-process kernel (the notebook's own shell), on a plain IPython shell."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from kit.kernels import status_of, text_of, tool_runner
from traitlets.config import Config

from prime_jupyter.kernel.inprocess import InProcessLauncher
from prime_jupyter.kernel.ops import KernelError
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner


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
async def test_the_helpers_work_in_process(provisioner: IpythonKernelProvisioner) -> None:
    result = await tool_runner(provisioner)("%%bash\necho b\nexit 2")
    assert text_of(result) == "b\nbash exited with status 2"


@pytest.mark.asyncio
async def test_the_notebooks_kernel_is_never_restarted(provisioner: IpythonKernelProvisioner) -> None:
    ops = await provisioner.ensure()
    with pytest.raises(KernelError, match="restart it from the notebook"):
        await ops.restart()
