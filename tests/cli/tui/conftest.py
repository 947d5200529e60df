"""Fixtures of the terminal app's tests: an agent home on the scripted LLM server, a session on it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from tui_kit import local_connection

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.testing import ScriptedLLMServer
from prime_jupyter.testing.jupyter_process import write_agent_dir


@pytest.fixture
def home(tmp_path: Path, llm: ScriptedLLMServer) -> Path:
    """An agent home on the scripted server (models scripted/m1 and m2; tools bash and read; no retries)."""
    agent = tmp_path / "agent"
    write_agent_dir(agent, llm)
    settings = json.loads((agent / "settings.json").read_text())
    (agent / "settings.json").write_text(json.dumps({**settings, "retry": {"baseDelayMs": 10, "maxRetries": 1}}))
    (tmp_path / "work").mkdir()
    return agent


@pytest_asyncio.fixture
async def connection(home: Path) -> AsyncIterator[InProcessAgentConnection]:
    conn = local_connection(home)
    yield conn
    await conn.dispose()
