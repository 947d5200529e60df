"""The AgentConnection suite runs against every implementation through the `connection` fixture.

`in-process`: the runtime in the test's process. `http`: an `HttpAgentConnection` to a session in a
real `jupyter server` subprocess with the extension (one server for all of them; each test points the
server's agent home at its own scripted LLM server before it creates its session).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from prime_jupyter.connection import LocalTarget, ServerTarget, open_connection
from prime_jupyter.testing import ScriptedLLMServer
from prime_jupyter.testing.jupyter_process import JupyterProcess, write_agent_dir

ConnectionFactory = Callable[[], object]


@pytest.fixture(scope="session")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    """A jupyter server shared by the connection tests; its base URL has a character that must be escaped."""
    base = tmp_path_factory.mktemp("jupyter")
    (base / "agent").mkdir()
    outside = ("--PrimeApp.allow_outside_root=True",)  # each test's work dir is its own, outside this root
    with JupyterProcess(base / "agent", base, base / "runtime", base_url="/a@b/", args=outside) as server:
        yield server


@pytest_asyncio.fixture(params=["in-process", "http"])
async def connection(request: pytest.FixtureRequest, tmp_path: Path, llm: ScriptedLLMServer) -> AsyncIterator[object]:
    work = tmp_path / "work"
    work.mkdir()
    target: LocalTarget | ServerTarget
    if request.param == "http":
        server: JupyterProcess = request.getfixturevalue("jupyter")
        write_agent_dir(server.agent_dir, llm)
        endpoint = server.endpoint
        target = ServerTarget(
            cwd=work, url=endpoint.url, token=endpoint.token, new_session_cwd=str(work), model="scripted/m1"
        )
    else:
        home = tmp_path / "agent"
        write_agent_dir(home, llm)
        target = LocalTarget(cwd=work, model="scripted/m1", agent_dir=home, interactive=True)
    conn = await open_connection(target)  # the one door every front end comes through
    yield conn
    await conn.dispose()
