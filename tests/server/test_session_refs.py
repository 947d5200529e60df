"""`switch_session` (and attach, rename, delete by reference) name sessions of this server only: by id, name,
or a transcript of the sessions folder. Anything else is one 404 that tells nothing of what is there.

Regression (issue 27, item 8): a path anywhere was read, so a token holder could tell which paths exist
(and open a transcript kept outside the sessions folder)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from kit.server import PrimeClient


async def switch(prime: PrimeClient, session_id: str, ref: str) -> tuple[int, dict[str, object]]:
    body = {"sessionId": session_id, "command": {"type": "switch_session", "session": ref}}
    return await prime.status("POST", "connection/command", json.dumps(body).encode())


async def test_switch_session_answers_one_404_for_every_path_outside_the_sessions_folder(
    prime: PrimeClient, agent_dir: Path, jp_root_dir: Path, tmp_path: Path
) -> None:
    here, other = await prime.new_session(), await prime.new_session()
    transcript = agent_dir / "sessions" / f"{other}.jsonl"
    away = tmp_path / "away"
    away.mkdir()
    shutil.copyfile(transcript, away / "copy.jsonl")  # a real transcript, outside the sessions folder
    (away / "notes.txt").write_text("private")
    refs = [
        str(away / "copy.jsonl"),
        str(away / "notes.txt"),
        str(away),
        str(away / "missing.jsonl"),
        "/nonexistent/x",
        f"../{agent_dir.name}/sessions/../../away/copy.jsonl",
        "copy.jsonl",
    ]
    answers = {ref: await switch(prime, here, ref) for ref in refs}
    assert {code for code, _ in answers.values()} == {404}, answers
    assert len({str(reply["message"]).replace(repr(ref), "REF") for ref, (_, reply) in answers.items()}) == 1
    for ref in (str(transcript), f"{other}.jsonl", other):
        code, reply = await switch(prime, here, ref)
        assert code == 200 and reply["snapshot"]["state"]["sessionId"] == other, (ref, reply)  # type: ignore[index]
