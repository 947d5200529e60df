"""The AgentConnection suite runs against every implementation through the `connection` fixture."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.runtime.factory import SessionOptions
from prime_jupyter.testing import ScriptedLLMServer


def write_agent_dir(home: Path, llm: ScriptedLLMServer) -> None:
    home.mkdir(parents=True, exist_ok=True)
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k",
                "models": [{"id": "m1", "reasoning": True}, {"id": "m2"}]}
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "settings.json").write_text(json.dumps({"tools": ["bash", "read"], "retry": {"baseDelayMs": 10}}))


ConnectionFactory = Callable[[], object]


@pytest_asyncio.fixture(params=["in-process"])
async def connection(request: pytest.FixtureRequest, tmp_path: Path, llm: ScriptedLLMServer) -> AsyncIterator[object]:
    home = tmp_path / "agent"
    write_agent_dir(home, llm)
    work = tmp_path / "work"
    work.mkdir()
    options = SessionOptions(cwd=work, model="scripted/m1", agent_dir=home, interactive=True)
    conn = InProcessAgentConnection.create(options)
    yield conn
    await conn.dispose()
