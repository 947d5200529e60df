"""A warm `jupyter server` with only the prime extension, for the `jupyter prime attach` runs.

It writes its `jpserver-<pid>.json` into a runtime dir of its own, where `jupyter prime attach` finds
it (as a user in a folder the server serves would), and keeps its own agent dir (`--PrimeApp.agent_dir`).
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

__all__ = ["WarmServer"]

_OTHER_EXTENSIONS = ("jupyterlab", "jupyter_lsp", "notebook_shim", "jupyter_server_terminals")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class WarmServer:
    """`python -m jupyter_server` rooted at `root`, started at once; `stop()` ends it."""

    def __init__(self, root: Path) -> None:
        self.runtime_dir = root / "jupyter-runtime"
        self.agent_dir = root / "attach-agent"
        self.agent_dir.mkdir(parents=True, exist_ok=True)
        port, self.token = _free_port(), secrets.token_hex(8)
        extensions = {name: False for name in _OTHER_EXTENSIONS} | {"prime_jupyter": True}
        config = {"JUPYTER_CONFIG_DIR": str(root / "jupyter-config"), "JUPYTER_RUNTIME_DIR": str(self.runtime_dir)}
        env = {**os.environ, **config}
        command = [
            sys.executable,
            "-m",
            "jupyter_server",
            f"--ServerApp.port={port}",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={root}",
            "--ServerApp.open_browser=False",
            "--allow-root",
            f"--ServerApp.jpserver_extensions={extensions!r}",
            f"--PrimeApp.agent_dir={self.agent_dir}",
        ]
        self._log = (root / "jupyter-server.log").open("wb")
        self.process = subprocess.Popen(command, env=env, stdout=self._log, stderr=self._log)
        self.url = f"http://127.0.0.1:{port}/"

    def wait_ready(self, timeout_s: float = 120) -> None:
        """Until `GET /api/status` answers 200 (polled every 20 ms)."""
        request = urllib.request.Request(self.url + "api/status", headers={"Authorization": f"token {self.token}"})
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter server exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError):
                pass
            time.sleep(0.02)
        raise RuntimeError("jupyter server did not start")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(30)
        self._log.close()
