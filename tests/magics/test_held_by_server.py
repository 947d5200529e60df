"""Issue 31 item 1, in a notebook: `%prime resume` of a session a running Jupyter server has open would have
appended the notebook's turns from a second process. It is refused, saying how to attach."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from kit.server import own_jupyter
from notebook_kit import Kernel, kernel_env

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text
from prime_jupyter.testing.jsonl import lines
from prime_jupyter.testing.jupyter_process import ROOT, JupyterProcess, write_agent_dir

pytestmark = pytest.mark.e2e  # a real kernel and a real `jupyter server`


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    yield from own_jupyter(tmp_path_factory, "held-nb")


def test_resuming_a_session_a_server_has_open_is_refused(jupyter: JupyterProcess, llm: ScriptedLLMServer) -> None:
    write_agent_dir(jupyter.agent_dir, llm)
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "JUPYTER_TOKEN"}
    environment.update(JUPYTER_RUNTIME_DIR=str(jupyter.runtime_dir), PYTHONPATH=str(ROOT))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="in the server")]))
    started = subprocess.run(
        [sys.executable, "-m", "prime_jupyter.cli", "attach", "--model", "scripted/m1", "-p", "first"],
        capture_output=True, text=True, timeout=120, env=environment, cwd=jupyter.root_dir / "work",
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    session_id = next(line for line in lines(started.stderr) if line.startswith("prime: session ")).split()[-1]
    [transcript] = [p for p in (jupyter.agent_dir / "sessions").rglob("*.jsonl") if session_id in p.read_text()]
    before = transcript.read_bytes()

    env = {**kernel_env(jupyter.agent_dir), "JUPYTER_RUNTIME_DIR": str(jupyter.runtime_dir)}
    kernel = Kernel(jupyter.root_dir / "work", env)
    try:
        assert kernel.run("%load_ext prime_jupyter").status == "ok"
        resumed = kernel.run(f"%prime resume {session_id[-8:]}").text()
        assert f"session {session_id} is open in the Jupyter server at" in resumed, resumed
        assert f"jupyter prime attach --session {session_id.replace('-', '')[-8:]}" in resumed
        cell = kernel.run("%%prime\nand now?")
        assert cell.status == "error" and "is open in the Jupyter server" in cell.text(), cell.text()
    finally:
        kernel.shutdown()
    assert transcript.read_bytes() == before and llm.pending == 0 and len(llm.requests) == 1
