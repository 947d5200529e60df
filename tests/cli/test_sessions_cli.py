"""Finding sessions again from the command line (issue 17, item 10): the id a `-p` run wrote, `jupyter prime
sessions`, and `-r` by any unique part of an id or by name; subprocesses against the scripted server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from kit.cli import prime

from prime_jupyter.sessions.listing import rename_session
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text
from prime_jupyter.testing.jsonl import lines

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess

SAID = re.compile(r"prime: session (\S+)  \(resume with: jupyter prime -r (\w+)\)")


def run(agent_dir: Path, llm: ScriptedLLMServer, prompt: str, cwd: Path, *args: str) -> tuple[str, str]:
    """A `-p` run answering "ok": the session id it said it wrote, and the part of it to resume with."""
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    done = prime(agent_dir, "--model", "scripted/m1", "--tools", "read", *args, "-p", prompt, cwd=cwd)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr
    said = SAID.fullmatch(lines(done.stderr)[-1])
    assert said is not None, done.stderr
    return said.group(1), said.group(2)


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    return here, there


def test_sessions_lists_this_folders_sessions_or_all(
    agent_dir: Path, llm: ScriptedLLMServer, folders: tuple[Path, Path]
) -> None:
    here, there = folders
    first, _ = run(agent_dir, llm, "load sales.csv", here)
    second, _ = run(agent_dir, llm, "plot   the\nrevenue", here)
    elsewhere, _ = run(agent_dir, llm, "other work", there)
    listed = prime(agent_dir, "sessions", "--json", cwd=here)
    assert listed.returncode == 0, listed.stderr
    sessions = json.loads(listed.stdout)
    assert [s["sessionId"] for s in sessions] == [second, first]  # newest first
    assert sessions[1]["firstMessage"] == "load sales.csv" and sessions[1]["cwd"] == str(here)
    assert sessions[1]["messageCount"] == 2 and sessions[1]["name"] is None
    everything = json.loads(prime(agent_dir, "sessions", "--all", "--json", cwd=here).stdout)
    assert {s["sessionId"] for s in everything} == {first, second, elsewhere}
    text = prime(agent_dir, "sessions", cwd=here)
    rows = lines(text.stdout)
    assert len(rows) == 2 and rows[0].startswith(second) and rows[0].endswith("just now  plot the revenue")
    assert "jupyter prime -r" in text.stderr
    empty = prime(agent_dir, "sessions", cwd=there.parent)
    assert empty.returncode == 0 and empty.stdout == "" and "--all" in empty.stderr


def test_resume_by_name_by_a_middle_part_and_by_what_the_run_said(
    agent_dir: Path, llm: ScriptedLLMServer, folders: tuple[Path, Path]
) -> None:
    here, _ = folders
    named, _ = run(agent_dir, llm, "first of the named", here)
    other, other_hint = run(agent_dir, llm, "first of the other", here)
    sessions = json.loads(prime(agent_dir, "sessions", "--json", cwd=here).stdout)
    rename_session(next(s["path"] for s in sessions if s["sessionId"] == named), "sales report")

    run(agent_dir, llm, "by its name", here, "-r", "sales report")
    assert "first of the named" in json.dumps(llm.requests[-1].body)
    run(agent_dir, llm, "by part of its name", here, "-r", "Report")
    assert "by its name" in json.dumps(llm.requests[-1].body)
    middle = other.replace("-", "")[14:24]  # neither its start (the time both share) nor its end
    resumed, _ = run(agent_dir, llm, "by the middle of its id", here, "-r", middle)
    assert resumed == other and "first of the other" in json.dumps(llm.requests[-1].body)
    again, _ = run(agent_dir, llm, "by the part the run said", here, "-r", other_hint)
    assert again == other and "by the middle of its id" in json.dumps(llm.requests[-1].body)


def test_an_ambiguous_or_unknown_resume_says_what_to_do(
    agent_dir: Path, llm: ScriptedLLMServer, folders: tuple[Path, Path]
) -> None:
    here, _ = folders
    one, _ = run(agent_dir, llm, "the first task", here)
    two, _ = run(agent_dir, llm, "the second task", here)
    shared = one[:4]  # ids are time-ordered: sessions made close together share their start
    ambiguous = prime(agent_dir, "-r", shared, "-p", "x", cwd=here)
    assert ambiguous.returncode == 1 and len(llm.requests) == 2  # the model was not asked
    said = lines(ambiguous.stderr)
    assert said[0] == f"error: {shared!r} matches 2 sessions:"
    assert said[1].startswith(f"  {two}") and said[1].endswith("just now  the second task")
    assert said[2].startswith(f"  {one}") and said[2].endswith("the first task")
    assert "choose one by more of its id or by its full name" in said
    unknown = prime(agent_dir, "-r", "zzz", "-p", "x", cwd=here)
    assert unknown.returncode == 1
    assert lines(unknown.stderr) == [
        "error: no session matches 'zzz' (by id or name)",
        "the saved sessions: jupyter prime sessions --all",
    ]
