"""`remote_run.start_run`: a prompt run in a session of a real `jupyter server`, in one request
(`POST connection/run`), with the standard library only."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from prime_jupyter.connection import ServerTarget
from prime_jupyter.connection._endpoint import ServerEndpoint
from prime_jupyter.connection._plain_http import proxied
from prime_jupyter.connection.remote_run import RemoteRun, event_type, start_run
from prime_jupyter.errors import BusyError, PrimeError, SessionNotFoundError
from prime_jupyter.protocol.codec import event_to_json
from prime_jupyter.protocol.connection_routes import RunRequest
from prime_jupyter.protocol.event_decoder import EventDecoder
from prime_jupyter.protocol.version import PROTOCOL_VERSION, SCHEMA_REVISION
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.jupyter_process import ROOT, TOKEN, JupyterProcess, write_agent_dir


def target(server: JupyterProcess, work: Path, **fields: str) -> ServerTarget:
    values = {"url": server.endpoint.url, "token": server.endpoint.token, "model": "scripted/m1", **fields}
    return ServerTarget(cwd=work, new_session_cwd=str(work), **values)  # type: ignore[arg-type]


def started(server: JupyterProcess, llm: ScriptedLLMServer, work: Path, text: str, **fields: str) -> RemoteRun:
    write_agent_dir(server.agent_dir, llm)
    run = start_run(target(server, work, **fields), text)
    assert run is not None
    return run


def texts_of(run: RemoteRun) -> list[str]:
    return [text for batch in run.batches() for text in batch]


def test_the_events_come_as_the_codec_encodes_them(
    jupyter: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    """What `--mode json` prints in process for the same events, character for character."""
    llm.enqueue(
        ScriptedTurn(
            blocks=[Text(text="Let me look.", chunks=2), ToolCall(name="bash", arguments={"command": "echo hé"})]
        ),
        ScriptedTurn(blocks=[Text(text="It said hé \u2028 there.", chunks=3)]),
    )
    run = started(jupyter, llm, tmp_path, "look")
    assert run.header["type"] == "session" and run.header["id"] == run.session_id
    texts = texts_of(run)
    decoder = EventDecoder()  # each event encoded before the next is decoded (the decoder grows the message)
    assert [event_to_json(event) for text in texts if (event := decoder.decode(json.loads(text)))] == texts
    assert [event_type(text) for text in texts[:2]] == ["agent_start", "turn_start"]
    assert event_type(texts[-1]) == "agent_end"
    assert json.loads(texts[-1])["messages"][-1]["content"][0]["text"] == "It said hé \u2028 there."


def test_a_session_is_continued_by_id_and_a_busy_one_refuses_until_aborted(
    jupyter: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "sleep 30"})]),
        ScriptedTurn(blocks=[Text(text="again")]),
    )
    run = started(jupyter, llm, tmp_path, "sleep")
    batches = run.batches()
    while "tool_execution_start" not in [event_type(text) for text in next(batches)]:
        pass
    with pytest.raises(BusyError):
        start_run(target(jupyter, tmp_path, session=run.session_id), "and now?")
    run.abort()
    last = [text for batch in batches for text in batch][-1]
    assert event_type(last) == "agent_end" and json.loads(last)["messages"][-1]["role"] == "toolResult"  # cut short
    again = started(jupyter, llm, tmp_path, "again?", session=run.session_id[-8:])
    assert again.session_id == run.session_id
    assert json.loads(texts_of(again)[-1])["messages"][-1]["content"][0]["text"] == "again"


def test_refusals_read_as_the_long_way_reads_them(jupyter: JupyterProcess, tmp_path: Path) -> None:
    with pytest.raises(PrimeError, match=r"refused the request \(403 at .*prime/api/connection/run\): check the token"):
        start_run(target(jupyter, tmp_path, token="wrong"), "hi")
    with pytest.raises(SessionNotFoundError):
        start_run(target(jupyter, tmp_path, session="0000-no-such-session"), "hi")
    with pytest.raises(PrimeError, match=r"cannot reach the Jupyter server at http://127\.0\.0\.1:9/"):
        start_run(ServerTarget(cwd=tmp_path, url="http://127.0.0.1:9/", token="t"), "hi")


def test_clients_of_other_protocols_are_refused_naming_what_to_upgrade(jupyter: JupyterProcess) -> None:
    url = jupyter.endpoint.url + "prime/api/connection/run"
    headers = {"Authorization": f"token {TOKEN}"}
    for version, upgrade in (
        (PROTOCOL_VERSION - 1, "the client"),
        (PROTOCOL_VERSION + 1, "prime-jupyter on the server"),
    ):
        body = {"message": "hi", "clientProtocolVersion": version}
        refused = httpx.post(url, json=body, headers=headers, timeout=30)
        assert refused.status_code == 409 and f"upgrade {upgrade}" in refused.json()["message"]


class _OldServer(http.server.BaseHTTPRequestHandler):
    """What a server of an earlier version answers to `POST connection/run`: Jupyter's own 404 page."""

    bodies: list[object] = []

    def do_POST(self) -> None:
        self.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.do_GET()

    def do_GET(self) -> None:
        page = b"<html><title>404: Not Found</title></html>"
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def old_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _OldServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/base/"
    server.shutdown()


def test_a_server_without_the_route_is_left_to_the_long_way(old_server: str, tmp_path: Path) -> None:
    _OldServer.bodies.clear()
    run = start_run(
        ServerTarget(cwd=tmp_path, url=old_server, token="t", new_session_cwd="sub", model="p/m:high"), "hi"
    )
    assert run is None
    sent = RunRequest.model_validate(_OldServer.bodies[0])  # the request is the protocol's own model
    assert (sent.message, sent.cwd, sent.thinking_level) == ("hi", "sub", "high")
    assert sent.model is not None and (sent.model.provider, sent.model.id) == ("p", "m")
    assert (sent.client_protocol_version, sent.client_schema_revision) == (PROTOCOL_VERSION, SCHEMA_REVISION)


def test_the_command_goes_the_long_way_to_a_server_without_the_route(old_server: str, tmp_path: Path) -> None:
    """The long way asks `GET info` first: here it finds no prime-jupyter at all, and says so."""
    done = subprocess.run(
        [sys.executable, "-m", "prime_jupyter.cli", "attach", "--url", old_server, "--token", "t", "-p", "hi"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 1
    where = old_server + "/base/prime/api/info"  # the server's URL, then the path asked, as the long way says it
    assert done.stderr == f"error: no such route: {where} (is prime-jupyter installed and enabled on that server?)\n"


def test_a_server_behind_a_proxy_the_environment_names_is_left_to_httpx(monkeypatch: pytest.MonkeyPatch) -> None:
    local, remote = ServerEndpoint("http://127.0.0.1:8888/"), ServerEndpoint("https://hub.example.org/user/me/")
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    assert not proxied(local) and not proxied(remote)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    assert proxied(remote) and not proxied(local)  # an http server is not reached through an https proxy
    monkeypatch.setenv("no_proxy", "localhost,.example.org")
    assert not proxied(remote)
    monkeypatch.setenv("ALL_PROXY", "socks5://proxy:1080")
    assert proxied(local) and not proxied(ServerEndpoint.unix("/tmp/jp.sock"))
