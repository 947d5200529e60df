"""`JupyterProcess`: a real `jupyter server` subprocess with the prime extension, over TCP or a Unix socket.

Tests of `HttpAgentConnection` and `jupyter prime attach` run against it: a separate process, as in
real use, so the test's event loop and the server's never mix, and the server can be killed and
started again on the same port. Its agent home (`PRIME_AGENT_DIR`), root and runtime directories
are the caller's; API keys of the environment are not passed on.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx

from prime_jupyter.connection.http import ServerEndpoint
from prime_jupyter.testing import ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token"


OTHER_EXTENSIONS = (
    "jupyterlab",
    "jupyter_lsp",
    "notebook_shim",
    "jupyter_server_terminals",
    # the collab extra's (real-time collaboration), when installed
    "jupyter_server_ydoc",
    "jupyter_server_fileid",
)
"""The server extensions an environment may enable that an `only_ours` server leaves off (naming one that is
not installed does nothing)."""


def collab_state_args(folder: Path) -> list[str]:
    """Options that keep the collab extra's state (its file id and Y update databases) in `folder`, not in
    the user's Jupyter data folder and the served root; ignored where the extra is not installed."""
    return [
        f"--BaseFileIdManager.db_path={folder / 'file_id_manager.db'}",
        f"--SQLiteYStore.db_path={folder / 'ystore.db'}",
    ]


def write_agent_dir(home: Path, llm: ScriptedLLMServer) -> None:
    """An agent home whose provider `scripted` (models m1, m2) is `llm`; tools bash and read (no kernels);
    sessions run tools without asking (`permissionMode: auto`) unless a test asks for a mode."""
    home.mkdir(parents=True, exist_ok=True)
    provider = {
        "baseUrl": llm.base_url,
        "api": "anthropic-messages",
        "apiKey": "k",
        "models": [{"id": "m1", "reasoning": True}, {"id": "m2"}],
    }
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "settings.json").write_text(
        json.dumps({"tools": ["bash", "read"], "retry": {"baseDelayMs": 10}, "permissionMode": "auto"})
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class JupyterProcess:
    def __init__(
        self,
        agent_dir: Path,
        root_dir: Path,
        runtime_dir: Path,
        *,
        sock: Path | None = None,
        base_url: str = "/",
        args: tuple[str, ...] = (),
        token: str = TOKEN,
        tls: tuple[Path, Path] | None = None,
        only_ours: bool = False,
    ) -> None:
        """`args`: more command-line options; `tls`: serve HTTPS with this certificate and key file;
        `only_ours`: no other server extension is loaded (a quicker start)."""
        self.agent_dir, self.root_dir, self.runtime_dir = agent_dir, root_dir, runtime_dir
        self.sock = sock
        self.base_url = base_url
        self.port = free_port()
        self.args = args
        self.token = token
        self.tls = tls
        self.only_ours = only_ours
        self.log_path = runtime_dir.parent / f"jupyter-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> ServerEndpoint:
        if self.sock is not None:
            return ServerEndpoint.unix(str(self.sock), self.token, self.base_url)
        scheme = "https" if self.tls is not None else "http"
        return ServerEndpoint(f"{scheme}://127.0.0.1:{self.port}{self.base_url}", self.token)

    def env(self) -> dict[str, str]:
        environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        environment.update(
            PRIME_AGENT_DIR=str(self.agent_dir),
            JUPYTER_RUNTIME_DIR=str(self.runtime_dir),
            JUPYTER_CONFIG_DIR=str(self.runtime_dir.parent / "jupyter-config"),
            PYTHONPATH=str(ROOT),
        )
        return environment

    def start(self) -> JupyterProcess:
        where = [f"--ServerApp.sock={self.sock}"] if self.sock else [f"--ServerApp.port={self.port}"]
        command = [
            *(sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1"),
            *(
                f"--IdentityProvider.token={self.token}",
                "--ServerApp.port_retries=0",
                f"--ServerApp.base_url={self.base_url}",
            ),
            *(f"--ServerApp.root_dir={self.root_dir}", f"--ServerApp.jpserver_extensions={self._extensions()}"),
            *where,
            *([f"--ServerApp.certfile={self.tls[0]}", f"--ServerApp.keyfile={self.tls[1]}"] if self.tls else []),
            "--PrimeApp.default_permission_mode=auto",  # tools run without asking unless a test asks (`args`)
            *collab_state_args(self.runtime_dir),
            *self.args,
        ]
        self.runtime_dir.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(command, env=self.env(), stdout=log, stderr=log, cwd=self.root_dir)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()  # never leave a server behind that no fixture will stop
            raise
        return self

    def _extensions(self) -> str:
        others = OTHER_EXTENSIONS if self.only_ours else ()
        return repr({"prime_jupyter": True, **dict.fromkeys(others, False)})

    def _wait_ready(self, timeout_s: float = 60.0) -> None:
        transport = httpx.HTTPTransport(uds=str(self.sock)) if self.sock else None
        url = self.endpoint.url + "prime/api/info"
        headers = {"Authorization": f"token {self.token}"}
        with httpx.Client(transport=transport, headers=headers, verify=self.tls is None) as client:
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline:
                assert self.process is not None
                if self.process.poll() is not None:
                    raise RuntimeError(f"jupyter server exited: {self.log_path.read_text()[-3000:]}")
                try:
                    if client.get(url, timeout=2).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
        raise RuntimeError(f"jupyter server did not start: {self.log_path.read_text()[-3000:]}")

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> None:
        """Stop the server (SIGTERM: a clean shutdown; SIGKILL: a crash) and reap it."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self.process = None

    def __enter__(self) -> JupyterProcess:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
