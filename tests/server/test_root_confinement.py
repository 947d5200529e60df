"""Issue 15: sessions' working directories and exports stay inside the server's `root_dir` (403 with the
reason), as Jupyter's contents API does, unless `c.PrimeApp.allow_outside_root` says otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kit.server import PrimeClient

from prime_jupyter.protocol.version import PROTOCOL_VERSION
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


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


async def tool_parts(prime: PrimeClient, llm: ScriptedLLMServer, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Each call as one model turn of a session in the root, then an answer; the calls' last states."""
    session_id = await prime.new_session()
    for name, arguments in calls:
        llm.enqueue(ScriptedTurn(blocks=[ToolCall(name=name, arguments=arguments)]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="done")]))
    parts = {f["part"]["toolCallId"]: f["part"] for f in await prime.turn(session_id, "go") if f["type"] == "tool"}
    return list(parts.values())


@pytest.mark.prime_settings(tools=["read", "write", "edit"])
async def test_file_tools_in_a_server_session_stay_inside_the_root(
    prime: PrimeClient, llm: ScriptedLLMServer, jp_root_dir: Path, outside: Path
) -> None:
    """Regression (issue 27, item 3): `read`, `write` and `edit` acted outside the root, symlinks included."""
    (outside / "secret.txt").write_text("secret")
    (jp_root_dir / "inside" / "link.txt").symlink_to(outside / "secret.txt")
    escapes = [str(outside / "secret.txt"), "escape/secret.txt", "inside/link.txt", "../secret.txt"]
    calls: list[tuple[str, dict[str, Any]]] = [("read", {"path": path}) for path in escapes]
    calls += [("write", {"path": path, "content": "overwritten"}) for path in [*escapes, str(outside / "new.txt")]]
    calls += [("edit", {"path": path, "edits": [{"oldText": "secret", "newText": "edited"}]}) for path in escapes]
    parts = await tool_parts(prime, llm, calls)
    assert len(parts) == len(calls)
    for part in parts:
        assert part["state"] == "output-error" and "outside the server's root" in str(part["errorText"]), part
    assert (outside / "secret.txt").read_text() == "secret" and sorted(p.name for p in outside.iterdir()) == [
        "secret.txt"
    ]
    inside = await tool_parts(prime, llm, [("write", {"path": "inside/ok.txt", "content": "fine"})])
    assert inside[0]["state"] == "output-available" and (jp_root_dir / "inside" / "ok.txt").read_text() == "fine"


def _made_outside(agent_dir: Path, outside: Path) -> str:
    """A session `jupyter prime` made in `outside` (same agent dir), with one exchange."""
    from kit.sessions import make_assistant, make_user

    from prime_jupyter.sessions.manager import SessionManager

    manager = SessionManager.create(outside, agent_dir / "sessions")
    manager.append_message(make_user("made in the terminal"))
    manager.append_message(make_assistant("hello from outside"))
    manager.flush_now()
    return manager.session_id


async def test_a_session_made_outside_the_root_is_neither_listed_nor_run(
    prime: PrimeClient, agent_dir: Path, outside: Path
) -> None:
    """Issue 26: the server listed such a session and, opened from the panel, ran its kernel and tools in
    the outside folder."""
    session_id = _made_outside(agent_dir, outside)
    inside = await prime.new_session()
    listed = [s["sessionId"] for s in (await prime.get("chat/sessions"))["sessions"]]
    assert inside in listed and session_id not in listed
    for method, route, body in (
        ("GET", f"chat/session?sessionId={session_id}", None),
        ("POST", "chat", {"sessionId": session_id, "message": "run something"}),
        ("POST", "connection/attach", {"sessionId": session_id, "clientProtocolVersion": PROTOCOL_VERSION}),
    ):
        code, reply = await prime.status(method, route, json.dumps(body).encode() if body else None)
        assert code == 403, (route, code, reply)
        assert f"works in {outside}, outside this server's root" in reply["message"]
        assert f"jupyter prime -r {session_id}" in reply["message"] and "allow_outside_root" in reply["message"]
    assert not list(outside.iterdir())  # nothing ran there


@pytest.mark.prime(allow_outside_root=True)
async def test_the_setting_lets_the_server_run_sessions_made_outside_the_root(
    prime: PrimeClient, agent_dir: Path, outside: Path
) -> None:
    session_id = _made_outside(agent_dir, outside)
    assert session_id in [s["sessionId"] for s in (await prime.get("chat/sessions"))["sessions"]]
    assert (await prime.session(session_id))["session"]["cwd"] == str(outside)
