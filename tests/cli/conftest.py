"""Fixtures of the command line's tests: an agent home on the scripted provider server."""

from __future__ import annotations

from pathlib import Path

import pytest
from kit.cli import write_cli_agent_dir

from prime_jupyter.testing import ScriptedLLMServer


@pytest.fixture
def agent_dir(tmp_path: Path, llm: ScriptedLLMServer) -> Path:
    """`tmp_path/agent`: providers `scripted` (model m1) and `scripted-openai` (m2) on `llm`."""
    home = tmp_path / "agent"
    write_cli_agent_dir(home, llm)
    return home
