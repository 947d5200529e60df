"""Finding the Jupyter servers running on this machine, from the `jpserver-<pid>.json` files they write
into Jupyter's runtime directory (what `jupyter server list` reads).

`jupyter_server.serverapp.list_running_servers` does the same, but importing jupyter_server costs the
command line about two seconds; this reads the files itself.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import NamedTuple

from prime_jupyter.connection._endpoint import ServerEndpoint

__all__ = ["RunningServer", "find_server", "jupyter_runtime_dir", "running_servers"]


class RunningServer(NamedTuple):
    """A running server, from its info file (a `NamedTuple`: see `ServerEndpoint`)."""

    endpoint: ServerEndpoint
    root_dir: Path
    pid: int
    started: float
    """When its info file was written (seconds since the epoch)."""

    def serves(self, path: Path) -> bool:
        """Whether `path` lies inside the server's root directory."""
        return path.resolve().is_relative_to(self.root_dir.resolve())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read(file: Path) -> RunningServer | None:
    try:
        info = json.loads(file.read_text(encoding="utf-8"))
        pid, root = int(info["pid"]), Path(info["root_dir"])
        started = file.stat().st_mtime
    except (OSError, ValueError, KeyError, TypeError):
        return None  # being written, or not an info file
    token = info.get("token") or None
    if info.get("sock"):
        endpoint = ServerEndpoint.unix(str(info["sock"]), token, str(info.get("base_url") or "/"))
    else:
        endpoint = ServerEndpoint(str(info["url"]), token)
    return RunningServer(endpoint, root, pid, started) if _alive(pid) else None


def jupyter_runtime_dir() -> Path:
    """Jupyter's runtime directory, as `jupyter_core.paths.jupyter_runtime_dir` says. Its common cases
    (the variables set, or Linux without `JUPYTER_PLATFORM_DIRS`) are read here: importing
    `jupyter_core.paths` costs `jupyter prime attach` about 15 ms."""
    env = os.environ
    if env.get("JUPYTER_RUNTIME_DIR"):
        return Path(env["JUPYTER_RUNTIME_DIR"])
    if env.get("JUPYTER_DATA_DIR"):
        return Path(env["JUPYTER_DATA_DIR"], "runtime")
    if sys.platform.startswith("linux") and "JUPYTER_PLATFORM_DIRS" not in env:
        data = env.get("XDG_DATA_HOME") or os.path.join(os.path.realpath(os.path.expanduser("~")), ".local", "share")
        return Path(data, "jupyter", "runtime")
    from jupyter_core.paths import jupyter_runtime_dir as runtime_dir

    return Path(runtime_dir())


def running_servers(runtime_dir: Path | None = None) -> list[RunningServer]:
    """The servers whose process is alive, newest first."""
    if runtime_dir is None:
        runtime_dir = jupyter_runtime_dir()
    if not runtime_dir.is_dir():
        return []
    found = [_read(file) for file in runtime_dir.glob("jpserver-*.json")]
    return sorted((s for s in found if s is not None), key=lambda s: s.started, reverse=True)


def find_server(cwd: Path, runtime_dir: Path | None = None) -> RunningServer | None:
    """The newest running server whose root directory contains `cwd`."""
    return next((s for s in running_servers(runtime_dir) if s.serves(cwd)), None)
