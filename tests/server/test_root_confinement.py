"""Issue 15: sessions' working directories and exports stay inside the server's `root_dir` (403 with the
reason), as Jupyter's contents API does, unless `c.PrimeApp.allow_outside_root` says otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit.server import PrimeClient

from prime_jupyter.protocol.version import PROTOCOL_VERSION


@pytest.fixture
def outside(jp_root_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory outside the root, and a symlink to it inside the root (`escape`)."""
    away = tmp_path_factory.mktemp("away")
    (jp_root_dir / "escape").symlink_to(away, target_is_directory=True)
    (jp_root_dir / "inside").mkdir()
    return away


def escaping_cwds(outside: Path) -> list[str]:
    return ["..", "../..", "/", str(outside), "escape", "inside/../.."]


async def new_session(prime: PrimeClient, path: str, cwd: str) -> tuple[int, dict[str, object]]:
    body: dict[str, object] = {"cwd": cwd}
    if path.startswith("connection/"):
        body["clientProtocolVersion"] = PROTOCOL_VERSION
    if path.endswith("run"):
        body["message"] = "hi"
    return await prime.status("POST", path, json.dumps(body).encode())


@pytest.mark.parametrize("path", ["chat/new", "connection/attach", "connection/run"])
async def test_a_cwd_outside_the_root_is_a_403_naming_it_and_the_setting(
    prime: PrimeClient, outside: Path, path: str
) -> None:
    for cwd in escaping_cwds(outside):
        code, reply = await new_session(prime, path, cwd)
        assert code == 403, (cwd, reply)
        assert f"cwd: {cwd!r} is outside the server's root" in str(reply["message"])
        assert "allow_outside_root" in str(reply["message"])


@pytest.mark.parametrize("path", ["chat/new", "connection/attach"])
async def test_a_cwd_inside_the_root_is_fine(prime: PrimeClient, outside: Path, path: str) -> None:
    for cwd in ("inside", "inside/..", "."):
        assert (await new_session(prime, path, cwd))[0] == 200, cwd


@pytest.mark.prime(allow_outside_root=True)
async def test_the_setting_allows_a_cwd_outside_the_root(prime: PrimeClient, outside: Path) -> None:
    for cwd in escaping_cwds(outside):
        code, reply = await new_session(prime, "chat/new", cwd)
        assert code == 200, (cwd, reply)
    session = (await prime.post("chat/new", {"cwd": "escape"}))["session"]
    assert Path(session["cwd"]) == outside.resolve()


async def export(prime: PrimeClient, session_id: str, path: str) -> tuple[int, dict[str, object]]:
    request = {"sessionId": session_id, "command": "export", "path": path}
    return await prime.status("POST", "chat/command", json.dumps(request).encode())


async def test_an_export_outside_the_root_is_a_403(prime: PrimeClient, outside: Path) -> None:
    session_id = await prime.new_session()
    for path in ("../x.html", str(outside / "x.html"), "escape/x.html", "/tmp/x.jsonl"):
        code, reply = await export(prime, session_id, path)
        assert code == 403 and f"path: {path!r} is outside the server's root" in str(reply["message"])
    assert not list(outside.iterdir())
    request = {"type": "export", "path": "../x.html"}
    code, reply = await prime.status(
        "POST", "connection/command", json.dumps({"sessionId": session_id, "command": request}).encode()
    )
    assert code == 403 and "outside the server's root" in str(reply["message"])


async def test_an_export_inside_the_root_is_written(prime: PrimeClient, jp_root_dir: Path, outside: Path) -> None:
    session_id = await prime.new_session()
    assert (await export(prime, session_id, "inside/x.html"))[0] == 200
    assert (jp_root_dir / "inside" / "x.html").is_file()


@pytest.mark.prime(allow_outside_root=True)
async def test_the_setting_allows_an_export_outside_the_root(prime: PrimeClient, outside: Path) -> None:
    session_id = await prime.new_session()
    for path in (str(outside / "a.html"), "escape/b.html"):
        assert (await export(prime, session_id, path))[0] == 200
    assert sorted(p.name for p in outside.iterdir()) == ["a.html", "b.html"]
