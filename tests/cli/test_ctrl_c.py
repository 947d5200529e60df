"""Ctrl+C in a terminal: the terminal sends SIGINT to the whole foreground process group. Whatever runs (a
tool, a retry's wait), `jupyter prime -p` stops the run, says so and exits 130 (issue 17, item 9)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from kit.cli import cli_env, prime, prime_command

from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.jsonl import lines
from prime_jupyter.testing.jupyter_process import free_port

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess

TRAIN = (
    "import os, time, pathlib\n"
    "pathlib.Path('kernel.pid').write_text(str(os.getpid()))\n"
    "print('training', flush=True)\n"
    "for epoch in range(1200):\n"
    "    time.sleep(0.1)\n"
)


@contextmanager
def in_a_terminal(agent_dir: Path, *args: str) -> Iterator[subprocess.Popen[str]]:
    """`jupyter prime` as a terminal runs it: the leader of its own (foreground) process group."""
    command = prime_command(*args)
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(agent_dir),
        cwd=agent_dir.parent,
        start_new_session=True,
    ) as child:
        try:
            yield child
        finally:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)


def press_ctrl_c(child: subprocess.Popen[str]) -> tuple[int, str, str]:
    os.killpg(child.pid, signal.SIGINT)  # what the terminal does: the whole group
    out, err = child.communicate(timeout=60)
    return child.returncode, out, err


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def gone(pid: int, within_s: float = 10.0) -> bool:
    """Whether the process ends (an orphan may wait a moment for init to reap it)."""
    deadline = time.monotonic() + within_s
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_ctrl_c_while_the_ipython_tool_runs_stops_the_run(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    """It used to exit 0 with the partial text: the kernel got the SIGINT, and the run ended as if done."""
    llm.enqueue(ScriptedTurn(blocks=[Text(text="Starting. "), ToolCall(name="ipython", arguments={"code": TRAIN})]))
    pid_file = agent_dir.parent / "kernel.pid"
    with in_a_terminal(agent_dir, "--model", "scripted/m1", "-p", "train a model") as child:
        while not pid_file.is_file() or not pid_file.read_text():
            assert child.poll() is None, child.communicate()
            time.sleep(0.05)
        kernel = int(pid_file.read_text())
        assert os.getpgid(kernel) != child.pid  # the kernel has a group of its own: the terminal's signal misses it
        code, out, err = press_ctrl_c(child)
    assert code == 130 and out == "", err
    assert "error: interrupted (Ctrl+C): the run was stopped" in lines(err) and "Traceback" not in err
    assert gone(kernel)
    assert len(llm.requests) == 1  # the model was not asked to carry on
    (path,) = (agent_dir / "sessions").glob("*.jsonl")
    SessionManager.open(path)  # loadable
    llm.enqueue(ScriptedTurn(blocks=[Text(text="picked up")]))
    again = prime(agent_dir, "--model", "scripted/m1", "--tools", "read", "-c", "-p", "go on")
    assert again.returncode == 0 and again.stdout == "picked up\n", again.stderr
    sent = json.dumps(llm.requests[1].body)
    assert "train a model" in sent and "go on" in sent


def test_ctrl_c_during_a_retry_wait_stops_at_once(agent_dir: Path) -> None:
    models = json.loads((agent_dir / "models.json").read_text())
    down = {"baseUrl": f"http://127.0.0.1:{free_port()}", "api": "anthropic-messages", "apiKey": "k"}
    models["providers"]["down"] = {**down, "models": [{"id": "m1"}]}
    (agent_dir / "models.json").write_text(json.dumps(models))
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 60000, "maxDelayMs": 120000}}))
    with in_a_terminal(agent_dir, "--model", "down/m1", "--tools", "read", "-p", "hi") as child:
        assert child.stderr is not None
        said = child.stderr.readline()
        assert said.startswith('prime: retrying in 60 s (attempt 1/3) after "cannot reach http://127.0.0.1:'), said
        code, _, err = press_ctrl_c(child)
    assert code == 130 and "error: interrupted (Ctrl+C): the run was stopped" in err, err


def test_ctrl_c_while_the_answer_streams_stops_it(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="word " * 2000, chunks=2000)], chunk_delay_s=0.01))
    with in_a_terminal(agent_dir, "--model", "scripted/m1", "--tools", "read", "--mode", "json", "-p", "go") as child:
        assert child.stdout is not None
        while json.loads(child.stdout.readline())["type"] != "message_update":
            pass
        code, out, err = press_ctrl_c(child)
    assert code == 130 and "error: interrupted (Ctrl+C): the run was stopped" in err, err
    assert json.loads(lines(out)[-1])["type"] == "agent_end"  # the JSON stream still ends as a stream does
