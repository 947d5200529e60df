"""Fixtures of the magics tests: a real kernel with the extension loaded, against the scripted server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from notebook_kit import Kernel, kernel_env, write_agent_dir

from prime_jupyter.testing import ScriptedLLMServer


@pytest.fixture(scope="module")
def llm_server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture(scope="module")
def agent_home(tmp_path_factory: pytest.TempPathFactory, llm_server: ScriptedLLMServer) -> Path:
    return write_agent_dir(tmp_path_factory.mktemp("agent"), llm_server.base_url)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory, agent_home: Path) -> Iterator[Kernel]:
    """One kernel per test module, with `%load_ext prime_jupyter` done."""
    kernel = Kernel(tmp_path_factory.mktemp("notebook"), kernel_env(agent_home))
    loaded = kernel.run("%load_ext prime_jupyter")
    assert loaded.status == "ok", loaded.text()
    yield kernel
    kernel.shutdown()


@pytest.fixture
def llm(llm_server: ScriptedLLMServer) -> Iterator[ScriptedLLMServer]:
    """The module's scripted server, with no turn left over from an earlier test."""
    assert llm_server.pending == 0
    yield llm_server
