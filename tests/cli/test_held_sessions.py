"""Issue 31 item 1: `jupyter prime -c` / `-r` on a session a running Jupyter server has open appended a turn
from a second process (the transcript forked, neither side saw the other). Now it refuses, saying how to attach."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from kit.server import own_jupyter

from prime_jupyter.connection import LocalTarget, open_connection
from prime_jupyter.errors import SessionError
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text
from prime_jupyter.testing.jsonl import lines
from prime_jupyter.testing.jupyter_process import ROOT, JupyterProcess, write_agent_dir

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess beside a real `jupyter server`


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    yield from own_jupyter(tmp_path_factory, "held")


@pytest.fixture
def server(jupyter: JupyterProcess, llm: ScriptedLLMServer) -> JupyterProcess:
    write_agent_dir(jupyter.agent_dir, llm)
    return jupyter


def prime(server: JupyterProcess, *args: str) -> subprocess.CompletedProcess[str]:
    """`jupyter prime ARGS` in the server's folder, with the server's agent dir (as a user's shell has it)."""
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "JUPYTER_TOKEN"}
    environment.update(
        JUPYTER_RUNTIME_DIR=str(server.runtime_dir), PYTHONPATH=str(ROOT), PRIME_AGENT_DIR=str(server.agent_dir)
    )
    command = [sys.executable, "-m", "prime_jupyter.cli", *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, env=environment, cwd=server.root_dir / "work"
    )


def test_continuing_a_session_a_server_has_open_is_refused_with_the_attach_command(
    server: JupyterProcess, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="in the server")]))
    started = prime(server, "attach", "--model", "scripted/m1", "-p", "first")
    assert started.returncode == 0, started.stderr
    session_id = next(line for line in lines(started.stderr) if line.startswith("prime: session ")).split()[-1]
    [transcript] = [p for p in (server.agent_dir / "sessions").rglob("*.jsonl") if session_id in p.read_text()]
    before = transcript.read_bytes()
    attach = f"jupyter prime attach --session {session_id.replace('-', '')[-8:]}"

    for args in (("-c",), ("-r", session_id[-8:])):
        refused = prime(server, *args, "-p", "second")
        assert refused.returncode == 1, refused.stderr
        assert f"session {session_id} is open in the Jupyter server at" in refused.stderr
        assert attach in refused.stderr, refused.stderr
    assert transcript.read_bytes() == before  # nothing written from a second process
    assert llm.pending == 0 and len(llm.requests) == 1

    llm.enqueue(ScriptedTurn(blocks=[Text(text="joined")]))
    joined = prime(server, *attach.split()[2:], "-p", "second")  # the command it named, with a prompt
    assert joined.returncode == 0 and joined.stdout == "joined\n", joined.stderr
    assert len(lines(transcript.read_text())) > len(lines(before.decode()))


def test_a_saved_session_no_server_has_open_is_continued_here(server: JupyterProcess, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="here")]), ScriptedTurn(blocks=[Text(text="here again")]))
    first = prime(server, "--model", "scripted/m1", "-p", "start here")
    assert first.returncode == 0, first.stderr
    again = prime(server, "-c", "-p", "go on")
    assert again.returncode == 0 and again.stdout == "here again\n", again.stderr
    assert "start here" in str(llm.requests[-1].body)  # the same transcript, continued


@pytest.mark.asyncio
async def test_resume_in_the_app_refuses_a_session_a_server_has_open(
    server: JupyterProcess, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The terminal app's `/resume` (the connection's `switch_session`) asks too."""
    llm.enqueue(ScriptedTurn(blocks=[Text(text="in the server")]))
    started = prime(server, "attach", "--model", "scripted/m1", "-p", "first")
    assert started.returncode == 0, started.stderr
    session_id = next(line for line in lines(started.stderr) if line.startswith("prime: session ")).split()[-1]
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(server.runtime_dir))
    target = LocalTarget(cwd=server.root_dir / "work", model="scripted/m1", agent_dir=server.agent_dir)
    connection = await open_connection(target)
    try:
        with pytest.raises(SessionError, match=f"jupyter prime attach --session {session_id.replace('-', '')[-8:]}"):
            await connection.switch_session(session_id)
        assert (await connection.get_state()).session_id != session_id
    finally:
        await connection.dispose()
