"""Finding running Jupyter servers from the info files in the runtime directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from prime_jupyter.connection.http import find_server, running_servers


def write_info(runtime: Path, name: str, mtime: float, **info: object) -> None:
    runtime.mkdir(parents=True, exist_ok=True)
    path = runtime / f"jpserver-{name}.json"
    path.write_text(json.dumps({"pid": os.getpid(), "token": "t", "base_url": "/", **info}))
    os.utime(path, (mtime, mtime))


def dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_newest_live_server_whose_root_holds_the_directory(tmp_path: Path) -> None:
    runtime, project = tmp_path / "runtime", tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    write_info(runtime, "1", 1000, url="http://127.0.0.1:8001/", root_dir=str(tmp_path))
    write_info(runtime, "2", 3000, url="http://127.0.0.1:8002/", root_dir=str(project))
    write_info(runtime, "3", 4000, url="http://127.0.0.1:8003/", root_dir=str(tmp_path / "elsewhere"))
    write_info(runtime, "4", 5000, url="http://127.0.0.1:8004/", root_dir=str(project), pid=dead_pid())
    (runtime / "jpserver-5.json").write_text("{not json")
    assert [s.endpoint.url for s in running_servers(runtime)] == [
        "http://127.0.0.1:8003/",
        "http://127.0.0.1:8002/",
        "http://127.0.0.1:8001/",
    ]
    found = find_server(project / "sub", runtime)
    assert found is not None and found.endpoint.url == "http://127.0.0.1:8002/" and found.endpoint.token == "t"
    outside = find_server(Path("/"), runtime)
    assert outside is None


def test_a_unix_socket_server_and_an_empty_runtime_dir(tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    write_info(runtime, "1", 1000, url="http+unix://x/", sock="/tmp/jp.sock", base_url="/jp/", root_dir=str(tmp_path))
    (server,) = running_servers(runtime)
    assert (server.endpoint.sock, server.endpoint.url) == ("/tmp/jp.sock", "http://localhost/jp/")
    assert running_servers(tmp_path / "missing") == []
