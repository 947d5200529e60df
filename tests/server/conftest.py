"""A real Jupyter server with the prime extension (pytest-jupyter), its agent dir pointed at the scripted
LLM server. `@pytest.mark.prime(dialog_timeout=0.5)` sets `PrimeApp` traitlets for one test; settings.json
extras come from `@pytest.mark.prime_settings(...)`.

These coroutine tests are not marked for pytest-asyncio: pytest-jupyter runs them on the loop its
server lives on, which the extension's sessions use too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kit.server import MODEL, PrimeClient, write_agent_dir

from prime_jupyter.testing import ScriptedLLMServer


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "prime(**traits): PrimeApp traitlets for this test's server")
    config.addinivalue_line("markers", "prime_settings(**values): settings.json values of the agent dir")


@pytest.fixture
def agent_dir(tmp_path: Path, llm: ScriptedLLMServer, request: pytest.FixtureRequest) -> Path:
    marker = request.node.get_closest_marker("prime_settings")
    return write_agent_dir(tmp_path / "agent", llm.base_url, **(marker.kwargs if marker else {}))


@pytest.fixture
def jp_server_config(agent_dir: Path, request: pytest.FixtureRequest) -> dict[str, Any]:
    marker = request.node.get_closest_marker("prime")
    traits = {
        "agent_dir": str(agent_dir),
        "default_model": MODEL,
        "default_permission_mode": "auto",  # tools run without asking, unless a test asks for a mode
        **(marker.kwargs if marker else {}),
    }
    return {"ServerApp": {"jpserver_extensions": {"prime_jupyter": True}}, "PrimeApp": traits}


@pytest.fixture
def prime(jp_fetch: Any, jp_http_port: int, jp_base_url: str, jp_auth_header: dict[str, str]) -> PrimeClient:
    root = f"http://127.0.0.1:{jp_http_port}{jp_base_url}prime/api/"
    return PrimeClient(root, jp_auth_header)
