"""`POST prime/api/connection/shell`: the user's `!cmd` runs in the session's directory inside the root,
its output bounded as the `bash` tool's is, kept in the session's transcript."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from kit.server import PrimeClient


async def shell(prime: PrimeClient, session_id: str, command: str, **extra: object) -> tuple[int, dict[str, object]]:
    body = json.dumps({"sessionId": session_id, "command": command, **extra}).encode()
    return await prime.status("POST", "connection/shell", body)


async def test_a_command_runs_in_the_sessions_directory(prime: PrimeClient, jp_root_dir: Path) -> None:
    (jp_root_dir / "project").mkdir()
    session_id = await prime.new_session(cwd="project")
    code, reply = await shell(prime, session_id, "pwd; echo oops >&2; exit 2")
    assert code == 200, reply
    assert reply["output"] == f"{(jp_root_dir / 'project').resolve()}\noops" and reply["exitCode"] == 2
    assert reply["includedInContext"] is True and not reply.get("truncated")
    code, reply = await shell(prime, session_id, "echo quiet", includeInContext=False)
    assert code == 200 and reply["includedInContext"] is False


async def test_long_output_keeps_its_end_and_the_whole_of_it_in_a_file(prime: PrimeClient) -> None:
    session_id = await prime.new_session()
    code, reply = await shell(prime, session_id, "seq 1 5000")
    assert code == 200, reply
    lines = str(reply["output"]).split("\n")
    assert reply["truncated"] is True and len(lines) < 5000 and lines[-1] == "5000"
    full = Path(str(reply["fullOutputPath"]))
    assert full.read_text().split("\n")[:2] == ["1", "2"]
    full.unlink()


async def test_a_session_whose_directory_left_the_root_is_refused(
    prime: PrimeClient, jp_root_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    (jp_root_dir / "moved").mkdir()
    session_id = await prime.new_session(cwd="moved")
    away = tmp_path_factory.mktemp("away")
    shutil.rmtree(jp_root_dir / "moved")
    (jp_root_dir / "moved").symlink_to(away, target_is_directory=True)  # the folder now leads out of the root
    code, reply = await shell(prime, session_id, "touch escaped")
    assert code == 403 and "outside the server's root" in str(reply["message"])
    assert not (away / "escaped").exists()


async def test_bad_requests_say_what_is_wrong(prime: PrimeClient) -> None:
    session_id = await prime.new_session()
    code, reply = await shell(prime, session_id, "")
    assert code == 400 and "command" in str(reply["message"])
    code, reply = await shell(prime, "0" * 32, "ls")
    assert code in (400, 404), reply


async def test_a_session_opened_while_a_command_runs_holds_it_with_its_output_so_far(
    prime: PrimeClient, jp_root_dir: Path
) -> None:
    session_id = await prime.new_session()
    waits = "echo first; while [ ! -e go ]; do sleep 0.02; done; echo second"
    async with prime.events(session_id) as stream:
        running = asyncio.ensure_future(shell(prime, session_id, waits, executionId="cmd-9"))
        await stream.until(lambda f: f["type"] == "shell" and f["phase"] == "output", wait_s=30)
    shells = (await prime.session(session_id))["runningShells"]
    assert shells == [
        {"executionId": "cmd-9", "command": waits, "includeInContext": True, "output": "first\n", "skipped": 0}
    ]
    (jp_root_dir / "go").touch()
    code, reply = await asyncio.wait_for(running, 30)
    assert code == 200 and reply["output"] == "first\nsecond"
    assert (await prime.session(session_id))["runningShells"] == []
