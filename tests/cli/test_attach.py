"""`jupyter prime attach`, end to end: the CLI in a subprocess against a real `jupyter server` subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from kit.server import own_jupyter

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.jsonl import json_lines, lines
from prime_jupyter.testing.jupyter_process import ROOT, TOKEN, JupyterProcess, write_agent_dir

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    yield from own_jupyter(tmp_path_factory, "attach")


@pytest.fixture
def server(jupyter: JupyterProcess, llm: ScriptedLLMServer) -> JupyterProcess:
    write_agent_dir(jupyter.agent_dir, llm)
    return jupyter


def attach(
    server: JupyterProcess, *args: str, cwd: Path | None = None, runtime_dir: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "prime_jupyter.cli", "attach", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=client_env(runtime_dir or server.runtime_dir),
        cwd=cwd or server.root_dir / "work",
    )


def client_env(runtime_dir: Path) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "JUPYTER_TOKEN"}
    environment.update(JUPYTER_RUNTIME_DIR=str(runtime_dir), PYTHONPATH=str(ROOT))
    return environment


def session_of(done: subprocess.CompletedProcess[str]) -> str:
    line = next(line for line in lines(done.stderr) if line.startswith("prime: session "))
    return line.removeprefix("prime: session ")


def connection_call(server: JupyterProcess, route: str, body: dict[str, object]) -> dict[str, object]:
    url = server.endpoint.url + "prime/api/connection/" + route
    response = httpx.post(url, json=body, headers={"Authorization": f"token {TOKEN}"}, timeout=60)
    assert response.status_code == 200, response.text
    answer: dict[str, object] = response.json()
    return answer


def test_print_mode_finds_the_server_and_continues_a_session(server: JupyterProcess, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="It is 42.", chunks=3)]), ScriptedTurn(blocks=[Text(text="Still 42.")]))
    first = attach(server, "--model", "scripted/m1", "-p", "what is the answer?")
    assert first.returncode == 0, first.stderr
    assert first.stdout == "It is 42.\n"
    session = session_of(first)
    again = attach(server, "--session", session[:18], "-p", "sure?")
    assert again.returncode == 0, again.stderr
    assert again.stdout == "Still 42.\n" and session_of(again) == session
    sent = json.dumps(llm.requests[1].body)
    assert "what is the answer?" in sent and "It is 42." in sent and "sure?" in sent


def test_json_mode_streams_the_session_events(server: JupyterProcess, llm: ScriptedLLMServer) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo from-the-server"})]),
        ScriptedTurn(blocks=[Text(text="printed it", chunks=2)]),
    )
    done = attach(server, "--model", "scripted/m1", "--mode", "json", "-p", "run it")
    assert done.returncode == 0, done.stderr
    lines = json_lines(done.stdout)
    assert lines[0]["type"] == "session" and lines[0]["id"] == session_of(done)
    assert lines[1]["type"] == "agent_start" and lines[-1]["type"] == "agent_end"
    end = next(line for line in lines if line["type"] == "tool_execution_end")
    assert "from-the-server" in end["result"]["content"][0]["text"]
    deltas = [
        line["assistantMessageEvent"]["delta"]
        for line in lines
        if line["type"] == "message_update" and line["assistantMessageEvent"]["type"] == "text_delta"
    ]
    assert "".join(deltas) == "printed it"


def test_url_and_token_name_the_server(server: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="by url")]))
    nowhere = tmp_path / "empty-runtime"
    done = attach(
        server,
        "--url",
        server.endpoint.url,
        "--token",
        TOKEN,
        "--model",
        "scripted/m1",
        "-p",
        "hi",
        runtime_dir=nowhere,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "by url\n"
    refused = attach(server, "--url", server.endpoint.url, "--token", "wrong", "-p", "hi", runtime_dir=nowhere)
    assert refused.returncode == 1 and "check the token" in refused.stderr


def test_without_a_server_it_says_how_to_start_one(server: JupyterProcess, tmp_path: Path) -> None:
    done = attach(server, "-p", "hi", runtime_dir=tmp_path / "empty-runtime")
    assert done.returncode == 1
    assert done.stderr == "error: no running Jupyter server found: start one with `jupyter lab` or pass --url/--token\n"


def test_outside_every_root_it_lists_the_running_servers(
    server: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    """Issue 17: it said "no running Jupyter server found" while one ran, its root elsewhere."""
    outside = attach(server, "-p", "hi", cwd=tmp_path)
    assert outside.returncode == 1
    assert f"no running Jupyter server has {tmp_path} under its root directory" in outside.stderr
    assert f"  {server.endpoint.url}  (root {server.root_dir})" in lines(outside.stderr)
    assert "choose one with --url URL (or --sock PATH)" in outside.stderr and TOKEN not in outside.stderr
    llm.enqueue(ScriptedTurn(blocks=[Text(text="chosen")]))
    chosen = attach(server, "--url", server.endpoint.url, "--model", "scripted/m1", "-p", "hi", cwd=tmp_path)
    assert chosen.returncode == 0 and chosen.stdout == "chosen\n", chosen.stderr  # the token from its info file


def test_the_session_keeps_running_when_the_client_is_killed(server: JupyterProcess, llm: ScriptedLLMServer) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "sleep 1; echo slept"})]),
        ScriptedTurn(blocks=[Text(text="finished after the client left")]),
    )
    client = subprocess.Popen(
        [sys.executable, "-m", "prime_jupyter.cli", "attach", "--model", "scripted/m1", "--mode", "json", "-p", "go"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=client_env(server.runtime_dir),
        cwd=server.root_dir / "work",
    )
    assert client.stdout is not None
    session = json.loads(client.stdout.readline())["id"]
    while json.loads(client.stdout.readline())["type"] != "tool_execution_start":
        pass
    client.kill()
    client.wait(10)
    idle = connection_call(server, "wait", {"sessionId": session})
    assert idle["state"]["isStreaming"] is False  # type: ignore[index]
    command = {"sessionId": session, "command": {"type": "get_messages"}}
    messages = connection_call(server, "command", command)["messages"]
    assert messages[-1]["content"][0]["text"] == "finished after the client left"  # type: ignore[index]


def test_a_server_on_a_unix_socket_is_found_too(llm: ScriptedLLMServer, tmp_path: Path) -> None:
    write_agent_dir(tmp_path / "agent", llm)
    (tmp_path / "work").mkdir()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="through the socket")]))
    with JupyterProcess(tmp_path / "agent", tmp_path, tmp_path / "runtime", sock=tmp_path / "jp.sock") as uds:
        done = attach(uds, "--model", "scripted/m1", "-p", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "through the socket\n"


def test_attach_imports_no_server_no_runtime_and_no_sdk(server: JupyterProcess, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="light")]))
    code = (
        "import sys; from prime_jupyter.cli.__main__ import main;"
        f"rc = main(['attach', '--url', {server.endpoint.url!r}, '--token', {TOKEN!r}, '--model', 'scripted/m1',"
        " '-p', 'hi']);"
        "heavy = ('jupyter_server', 'tornado', 'anthropic', 'openai', 'textual', 'jupyter_client',"
        " 'prime_jupyter.runtime', 'prime_jupyter.server');"
        "print(rc, sorted(m for m in heavy if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=client_env(server.runtime_dir), timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert lines(done.stdout)[-1] == "0 []"


def prime_p(
    server: JupyterProcess, home: Path, *args: str, settings: dict[str, object] | None = None
) -> subprocess.CompletedProcess[str]:
    """`jupyter prime ... -p` (not attach) in the server's folder, with an agent dir of its own at `home`."""
    if settings is not None:
        (home / "settings.json").write_text(json.dumps(settings))
    return subprocess.run(
        [sys.executable, "-m", "prime_jupyter.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**client_env(server.runtime_dir), "PRIME_AGENT_DIR": str(home)},
        cwd=server.root_dir / "work",
    )


def test_print_mode_runs_in_the_warm_server_when_asked_and_says_so(
    server: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    write_agent_dir(tmp_path, llm)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="from the server")]), ScriptedTurn(blocks=[Text(text="by setting")]))
    flagged = prime_p(server, tmp_path, "--server", "auto", "--model", "scripted/m1", "-p", "where?")
    assert flagged.returncode == 0, flagged.stderr
    assert flagged.stdout == "from the server\n" and "in the Jupyter server at" in flagged.stderr
    by_setting = prime_p(server, tmp_path, "-p", "and now?", settings={"headlessServer": "auto"})
    assert by_setting.returncode == 0, by_setting.stderr
    assert by_setting.stdout == "by setting\n" and "in the Jupyter server at" in by_setting.stderr
    assert not (tmp_path / "sessions").exists()  # both sessions live in the server


def test_print_mode_runs_here_by_default_and_for_what_the_server_does_not_take(
    server: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    write_agent_dir(tmp_path, llm)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="here")]), ScriptedTurn(blocks=[Text(text="here too")]))
    default = prime_p(server, tmp_path, "--model", "scripted/m1", "-p", "where?")
    assert default.returncode == 0, default.stderr
    assert default.stdout == "here\n" and "Jupyter server" not in default.stderr
    tools = prime_p(server, tmp_path, "--server", "auto", "--model", "scripted/m1", "--tools", "read", "-p", "x")
    assert tools.returncode == 0, tools.stderr
    assert tools.stdout == "here too\n" and "Jupyter server" not in tools.stderr
    assert len(list((tmp_path / "sessions").glob("*.jsonl"))) == 2


def test_print_mode_imports_the_standard_library_only(server: JupyterProcess, llm: ScriptedLLMServer) -> None:
    """Issue 14: `attach -p` took 300 ms to the model's first request, 190 ms of it imports (pydantic, httpx)."""
    settings = json.loads((server.agent_dir / "settings.json").read_text())
    (server.agent_dir / "settings.json").write_text(json.dumps({**settings, "defaultModel": "scripted/m1"}))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="light")]))
    code = (
        "import sys; from prime_jupyter.cli.__main__ import main;"
        "rc = main(['attach', '--mode', 'json', '-p', 'hi']);"
        "heavy = ('pydantic', 'httpx', 'asyncio', 'textual', 'prime_jupyter.ai', 'prime_jupyter.protocol.events');"
        "print(rc, sorted(m for m in heavy if m in sys.modules), file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=client_env(server.runtime_dir),
        cwd=server.root_dir / "work",
        timeout=60,
    )
    assert lines(done.stderr)[-1] == "0 []", done.stderr
    assert json_lines(done.stdout)[-1]["type"] == "agent_end"


def test_ctrl_c_stops_the_run_in_the_server_and_says_so(server: JupyterProcess, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "sleep 30"})]))
    client = subprocess.Popen(
        [sys.executable, "-m", "prime_jupyter.cli", "attach", "--model", "scripted/m1", "--mode", "json", "-p", "go"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=client_env(server.runtime_dir),
        cwd=server.root_dir / "work",
    )
    assert client.stdout is not None and client.stderr is not None
    session = json.loads(client.stdout.readline())["id"]
    while json.loads(client.stdout.readline())["type"] != "tool_execution_start":
        pass
    client.send_signal(signal.SIGINT)
    assert client.wait(30) == 130
    said = lines(client.stderr.read())
    assert "prime: interrupted (Ctrl+C): stopping the run" in said
    assert said[-1] == "error: interrupted (Ctrl+C): the run was stopped"
    assert json_lines(client.stdout.read())[-1]["type"] == "agent_end"  # the run's last events came first
    idle = connection_call(server, "wait", {"sessionId": session})
    assert idle["state"]["isStreaming"] is False  # type: ignore[index]


def test_a_reader_that_stops_reading_stops_the_run_quietly(server: JupyterProcess, llm: ScriptedLLMServer) -> None:
    """`jupyter prime attach --mode json ... | head -n 3`: the shell's pipe exit code, no traceback, and the
    run in the server stopped (as in process)."""
    llm.enqueue(ScriptedTurn(blocks=[Text(text="x" * 4000, chunks=2000)], chunk_delay_s=0.001))
    command = [sys.executable, "-m", "prime_jupyter.cli", "attach", "--model", "scripted/m1", "--mode", "json"]
    child = subprocess.Popen(
        [*command, "-p", "go"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=client_env(server.runtime_dir),
        cwd=server.root_dir / "work",
    )
    assert child.stdout is not None and child.stderr is not None
    first = [child.stdout.readline() for _ in range(3)]
    child.stdout.close()  # what `head` does once it has its lines
    try:
        code = child.wait(30)
    except subprocess.TimeoutExpired:
        child.kill()
        raise AssertionError("the client went on after its reader left: " + child.stderr.read().decode()) from None
    stderr = child.stderr.read().decode()
    assert code == 141 and "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
    session = json.loads(first[0])["id"]
    idle = connection_call(server, "wait", {"sessionId": session})
    messages = connection_call(server, "command", {"sessionId": session, "command": {"type": "get_messages"}})
    assert idle["state"]["isStreaming"] is False  # type: ignore[index]
    assert messages["messages"][-1]["stopReason"] == "aborted"  # type: ignore[index]


def test_print_mode_makes_a_new_session_in_auto_and_permission_mode_sets_another(
    llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    (tmp_path / "agent").mkdir()
    (tmp_path / "work").mkdir()
    shipped = ("--PrimeApp.default_permission_mode=ask",)  # the shipped default, not the kit's auto
    with JupyterProcess(tmp_path / "agent", tmp_path, tmp_path / "runtime", args=shipped) as server:
        write_agent_dir(server.agent_dir, llm)
        settings = json.loads((server.agent_dir / "settings.json").read_text())
        settings.pop("permissionMode")
        (server.agent_dir / "settings.json").write_text(json.dumps(settings))
        llm.enqueue(ScriptedTurn(blocks=[Text(text="one")]), ScriptedTurn(blocks=[Text(text="two")]))
        modes = []
        for extra in ((), ("--permission-mode", "plan")):
            done = attach(server, "--model", "scripted/m1", *extra, "-p", "hi")
            assert done.returncode == 0, done.stderr
            state = connection_call(
                server, "command", {"sessionId": session_of(done), "command": {"type": "get_state"}}
            )
            modes.append(state["permissionMode"])
    assert modes == ["auto", "plan"]  # -p asks for auto (nobody answers approvals there) unless told otherwise
