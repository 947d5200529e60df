"""The `ipython` tool on remote kernels: a real `jupyter server --gateway-url` in front of a real
`jupyter kernelgateway` on localhost, both subprocesses. The agent's kernels start on the gateway, and
outputs, a time limit, an abort (an interrupt), a kernel death and a console on the kernel behave as
with the server's local kernels."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tornado.websocket import websocket_connect

from prime_jupyter.connection import ServerTarget
from prime_jupyter.connection.remote_run import RemoteRun, start_run
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.jupyter_process import JupyterProcess, free_port, write_agent_dir

pytestmark = pytest.mark.e2e

GATEWAY_TOKEN = "gateway-token"


class KernelGateway:
    """`jupyter kernelgateway` on 127.0.0.1, its kernels in `folder`."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / f"gateway-{self.port}.log"
        command = [
            *(sys.executable, "-m", "kernel_gateway", "--KernelGatewayApp.ip=127.0.0.1"),
            *(f"--KernelGatewayApp.port={self.port}", f"--KernelGatewayApp.auth_token={GATEWAY_TOKEN}"),
            "--KernelGatewayApp.port_retries=0",
            "--JupyterWebsocketPersonality.list_kernels=True",
        ]
        env = {"JUPYTER_RUNTIME_DIR": str(folder / "gateway-runtime"), "PATH": str(Path(sys.executable).parent)}
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(command, env=env, stdout=log, stderr=log, cwd=folder)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    def kernels(self) -> list[dict[str, object]]:
        headers = {"Authorization": f"token {GATEWAY_TOKEN}"}
        listed: list[dict[str, object]] = httpx.get(f"{self.url}/api/kernels", headers=headers, timeout=10).json()
        return listed

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"kernel gateway exited: {self.log_path.read_text()[-3000:]}")
            try:
                self.kernels()
                return
            except httpx.TransportError:
                time.sleep(0.1)
        raise RuntimeError(f"kernel gateway did not start: {self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelGateway]:
    remote = KernelGateway(tmp_path_factory.mktemp("gateway"))
    yield remote
    remote.stop()


@pytest.fixture(scope="module")
def jupyter(gateway: KernelGateway, tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    base = tmp_path_factory.mktemp("jupyter")
    (base / "agent").mkdir()
    args = (
        f"--gateway-url={gateway.url}",
        f"--GatewayClient.auth_token={GATEWAY_TOKEN}",
        "--PrimeApp.allow_outside_root=True",
        "--PrimeApp.tool_timeout=3",  # the ipython tool's time limit
    )
    with JupyterProcess(base / "agent", base, base / "runtime", args=args, only_ours=True) as server:
        yield server


def run(server: JupyterProcess, llm: ScriptedLLMServer, work: Path, *, session: str | None = None) -> RemoteRun:
    """A prompt run whose sessions have the `ipython` tool."""
    write_agent_dir(server.agent_dir, llm)
    settings = {"tools": ["ipython"], "retry": {"baseDelayMs": 10}}
    (server.agent_dir / "settings.json").write_text(json.dumps(settings))
    fields = {"session": session} if session else {}
    endpoint = server.endpoint
    target = ServerTarget(
        cwd=work, url=endpoint.url, token=endpoint.token, new_session_cwd=str(work), model="scripted/m1", **fields
    )
    started = start_run(target, "go")
    assert started is not None
    return started


def ipython_turns(llm: ScriptedLLMServer, *codes: str) -> None:
    for code in codes:
        llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": code})]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="done")]))


def results(started: RemoteRun) -> list[str]:
    """The text of each `ipython` result of the run, in order."""
    events = [json.loads(text) for batch in started.batches() for text in batch]
    ends = [event for event in events if event["type"] == "tool_execution_end"]
    return ["\n".join(part.get("text", "") for part in end["result"]["content"]) for end in ends]


def server_kernels(server: JupyterProcess) -> list[dict[str, object]]:
    headers = {"Authorization": f"token {server.token}"}
    listed: list[dict[str, object]] = httpx.get(server.endpoint.url + "api/kernels", headers=headers).json()
    return listed


async def console_run(server: JupyterProcess, kernel_id: str, code: str) -> str:
    """What a JupyterLab console on `kernel_id` prints for `code` (through the server's kernel websocket)."""
    url = f"ws://127.0.0.1:{server.port}/api/kernels/{kernel_id}/channels?token={server.token}"
    socket = await websocket_connect(url)
    msg_id = uuid.uuid4().hex
    header = {"msg_id": msg_id, "msg_type": "execute_request", "username": "t", "session": uuid.uuid4().hex}
    header["version"] = "5.3"
    content = {"code": code, "silent": False, "store_history": False, "allow_stdin": False}
    socket.write_message(
        json.dumps({"header": header, "parent_header": {}, "metadata": {}, "content": content, "channel": "shell"})
    )
    printed = []
    try:
        while True:
            raw = await socket.read_message()
            assert raw is not None, "the console's websocket closed"
            msg = json.loads(raw)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream":
                printed.append(msg["content"]["text"])
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                return "".join(printed)
    finally:
        socket.close()


def printed(event: dict[str, object], text: str) -> bool:
    """`event` is an update of a running `ipython` call that printed `text`."""
    if event["type"] != "tool_execution_update":
        return False
    outputs = event["partialResult"]["details"]["outputs"]  # type: ignore[index]
    return any(output.get("text") == text for output in outputs)


@pytest.mark.asyncio
async def test_the_agent_kernel_runs_on_the_gateway_and_a_console_opens_on_it(
    jupyter: JupyterProcess, gateway: KernelGateway, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    before = {kernel["id"] for kernel in gateway.kernels()}
    ipython_turns(llm, "answer = 6 * 7\nprint('printed', answer)\nanswer + 1")
    assert results(run(jupyter, llm, tmp_path)) == ["printed 42\nOut[1]: 43"]
    started = [kernel for kernel in gateway.kernels() if kernel["id"] not in before]
    assert len(started) == 1, started  # the agent's kernel is the gateway's
    kernel_id = str(started[0]["id"])
    assert kernel_id in {kernel["id"] for kernel in server_kernels(jupyter)}  # and the server lists it
    assert await console_run(jupyter, kernel_id, "print('console sees', answer)") == "console sees 42\n"


def test_a_time_limit_an_abort_and_a_death_behave_as_locally(
    jupyter: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    ipython_turns(
        llm,
        "kept = 'yes'\nimport time\nprint('sleeping', flush=True)\ntime.sleep(60)",
        "print('kept', kept)",
        "import os\nos.kill(os.getpid(), 9)",
        "print('alive', 'kept' in globals())",
    )
    timed_out, after, died, fresh = results(run(jupyter, llm, tmp_path))
    assert "sleeping" in timed_out and "KeyboardInterrupt" in timed_out
    assert "exceeded the time limit of 3 s and was interrupted; the kernel's state is kept" in timed_out
    assert after == "kept yes"
    assert "The kernel died while running this code" in died
    assert "alive False" in fresh and "This runs on a fresh kernel" in fresh


def test_an_abort_interrupts_the_remote_kernel_and_keeps_its_state(
    jupyter: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    code = "state = 5\nimport time\nprint('waiting', flush=True)\ntime.sleep(60)"
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": code})]))  # the abort ends the run
    first = run(jupyter, llm, tmp_path)
    events: list[dict[str, object]] = []
    aborted = False
    for batch in first.batches():
        events += [json.loads(text) for text in batch]
        if not aborted and any(printed(e, "waiting\n") for e in events):
            first.abort()  # the code printed: it runs on the remote kernel
            aborted = True
    end = next(e for e in events if e["type"] == "tool_execution_end")
    assert "Aborted by the user: the code was interrupted; the kernel's state is kept" in json.dumps(end)
    ipython_turns(llm, "print('state', state)")
    assert results(run(jupyter, llm, tmp_path, session=first.session_id)) == ["state 5"]
