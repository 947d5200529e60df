from __future__ import annotations

import os
from pathlib import Path

import pytest
from kit.sessions import make_assistant, make_user

from prime_jupyter.errors import SessionNotFoundError
from prime_jupyter.sessions.listing import (
    FULL_PARSE_LIMIT,
    delete_session,
    find_session,
    find_session_path,
    list_sessions,
    most_recent,
    read_session_info,
    rename_session,
)
from prime_jupyter.sessions.manager import SessionManager


def _saved(sessions: Path, cwd: Path, *texts: str, mtime: float | None = None) -> SessionManager:
    manager = SessionManager.create(cwd, sessions)
    for text in texts:
        manager.append_message(make_user(text))
        manager.append_message(make_assistant(f"re {text}"))
    manager.flush_now()
    if mtime is not None:
        assert manager.path is not None
        os.utime(manager.path, (mtime, mtime))
    return manager


def _write_header(sessions: Path, session_id: str) -> None:
    sessions.mkdir(parents=True, exist_ok=True)
    line = f'{{"type":"session","version":3,"id":"{session_id}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/x"}}\n'
    (sessions / f"{session_id}.jsonl").write_text(line)


def test_list_sessions_newest_first_with_summary_fields(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    old = _saved(sessions, tmp_path, "old task", mtime=1_000_000)
    new = _saved(sessions, tmp_path, "new task", "more", mtime=2_000_000)
    new.append_session_info("Named")
    os.utime(new.path or "", (2_000_000, 2_000_000))
    infos = list_sessions(sessions)
    assert [i.id for i in infos] == [new.session_id, old.session_id]
    assert (infos[0].name, infos[0].message_count, infos[0].first_message) == ("Named", 4, "new task")
    assert infos[0].all_messages_text == "new task re new task more re more"


def test_list_sessions_filters_by_cwd(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    here = _saved(sessions, tmp_path / "a", "x")
    _saved(sessions, tmp_path / "b", "y")
    assert [i.id for i in list_sessions(sessions, tmp_path / "a")] == [here.session_id]


def test_list_sessions_skips_files_that_are_not_transcripts(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    _saved(sessions, tmp_path, "x")
    (sessions / "junk.jsonl").write_text("not json\n")
    assert len(list_sessions(sessions)) == 1 and list_sessions(tmp_path / "missing") == []


def test_large_file_is_scanned_without_full_parse(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    manager = _saved(sessions, tmp_path, "first question")
    big = "y" * 100_000
    for _ in range(12):
        manager.append_message(make_user(big))
    manager.append_session_info("big one")
    assert manager.path is not None and manager.path.stat().st_size > FULL_PARSE_LIMIT
    info = read_session_info(manager.path)
    assert info is not None and (info.message_count, info.name, info.first_message) == (14, "big one", "first question")
    assert len(info.all_messages_text) == 64 * 1024


def test_find_session_by_unique_prefix_without_dashes(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    _write_header(sessions, "0192aaaa-1111-7000-8000-000000000001")
    _write_header(sessions, "0192bbbb-2222-7000-8000-000000000002")
    assert find_session(sessions, "0192b").id == "0192bbbb-2222-7000-8000-000000000002"
    assert find_session(sessions, "0192aaaa1111").id == "0192aaaa-1111-7000-8000-000000000001"


def test_find_session_by_display_suffix(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    _write_header(sessions, "0192aaaa-1111-7000-8000-000000000001")
    _write_header(sessions, "0192aaaa-1111-7000-8000-000000000002")
    assert find_session(sessions, "000000000002").id.endswith("0002")


def test_find_session_by_a_unique_middle_part_of_the_id(tmp_path: Path) -> None:
    """Ids are time-ordered: sessions made minutes apart share their start, so any unique part will do."""
    sessions = tmp_path / "s"
    _write_header(sessions, "0192aaaa-1111-7000-8000-00000000abc1")
    _write_header(sessions, "0192aaaa-2222-7000-8000-00000000abc2")
    assert find_session(sessions, "a-2222-7").id == "0192aaaa-2222-7000-8000-00000000abc2"
    assert find_session(sessions, "1111").id == "0192aaaa-1111-7000-8000-00000000abc1"


def test_find_session_ambiguous_part_lists_the_candidates_and_how_to_choose(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    first = _saved(sessions, tmp_path, "load sales.csv and plot it", mtime=1_000_000)
    second = _saved(sessions, tmp_path, "what is in this folder?", mtime=2_000_000)
    second.append_session_info("folder tour")
    os.utime(second.path or "", (2_000_000, 2_000_000))
    shared = first.session_id[:4]  # time-ordered: both ids start with it
    with pytest.raises(SessionNotFoundError) as raised:
        find_session(sessions, shared)
    message = str(raised.value).splitlines()
    assert message[0] == f"{shared!r} matches 2 sessions:"
    assert message[1].startswith(f"  {second.session_id}") and message[1].endswith(
        '"folder tour"  what is in this folder?'
    )
    assert "days ago" in message[1] and message[2].endswith("  load sales.csv and plot it")
    assert message[3] == "choose one by more of its id or by its full name"


def test_find_session_by_name_exact_then_a_unique_part(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    sales = _saved(sessions, tmp_path, "x")
    sales.append_session_info("sales")
    report = _saved(sessions, tmp_path, "y")
    report.append_session_info("sales report")
    _saved(sessions, tmp_path, "z")
    assert find_session(sessions, "sales").id == sales.session_id  # exact beats the part of "sales report"
    assert find_session(sessions, "Report").id == report.session_id
    with pytest.raises(SessionNotFoundError, match="'sal' matches 2 sessions"):
        find_session(sessions, "sal")


def test_find_session_with_no_match_says_so_without_an_unrelated_id(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    _write_header(sessions, "0192aaaa-1111-7000-8000-000000000001")
    with pytest.raises(SessionNotFoundError) as raised:
        find_session(sessions, "zzz")
    assert str(raised.value) == "no session matches 'zzz' (by id or name)"
    with pytest.raises(SessionNotFoundError, match="there are no sessions in"):
        find_session(tmp_path / "empty", "zzz")


def test_find_session_accepts_a_path(tmp_path: Path) -> None:
    manager = _saved(tmp_path / "s", tmp_path, "x")
    assert find_session(tmp_path / "elsewhere", str(manager.path)).id == manager.session_id


def test_find_session_path_is_the_path_find_session_resolves(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    first = _saved(sessions, tmp_path, "x")
    second = _saved(sessions, tmp_path, "y")
    second.append_session_info("sales")
    for query in (first.session_id, first.session_id.replace("-", ""), second.session_id[-6:], "sales"):
        assert find_session_path(sessions, query) == find_session(sessions, query).path
    assert find_session_path(tmp_path / "elsewhere", str(first.path)) == find_session(sessions, str(first.path)).path
    with pytest.raises(SessionNotFoundError, match="no session matches 'zzz'"):
        find_session_path(sessions, "zzz")


def test_most_recent_picks_the_newest_session_of_the_cwd(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    _saved(sessions, tmp_path, "older", mtime=1_000_000)
    newer = _saved(sessions, tmp_path, "newer", mtime=2_000_000)
    _saved(sessions, tmp_path / "other", "elsewhere", mtime=3_000_000)
    info = most_recent(sessions, tmp_path)
    assert info is not None and info.id == newer.session_id
    assert most_recent(sessions, tmp_path / "nobody") is None


def test_rename_appends_session_info(tmp_path: Path) -> None:
    manager = _saved(tmp_path / "s", tmp_path, "x")
    assert manager.path is not None
    rename_session(manager.path, "Renamed")
    assert SessionManager.open(manager.path).name == "Renamed"
    assert SessionManager.open(manager.path).entries[-1].parent_id == manager.leaf_id


def test_delete_removes_the_file(tmp_path: Path) -> None:
    manager = _saved(tmp_path / "s", tmp_path, "x")
    assert manager.path is not None
    delete_session(manager.path)
    assert list_sessions(tmp_path / "s") == []
    with pytest.raises(SessionNotFoundError):
        delete_session(manager.path)


def test_a_copy_holding_a_sessions_id_neither_doubles_nor_stands_in_for_it(tmp_path: Path) -> None:
    """Regression (issue 27, item 2): a JSONL export beside its transcript was listed as a second session,
    opened in its place by id, and reopened as the session after the transcript was deleted."""
    sessions = tmp_path / "sessions"
    manager = _saved(sessions, tmp_path, "hello")
    assert manager.path is not None
    old_export = sessions / f"{manager.session_id}.export.jsonl"  # where earlier versions wrote one
    hand_copy = sessions / "a-copy.jsonl"
    for copy in (old_export, hand_copy):
        copy.write_bytes(manager.path.read_bytes())
        os.utime(copy, (manager.path.stat().st_mtime + 10,) * 2)
    assert [info.path for info in list_sessions(sessions)] == [manager.path]
    assert find_session(sessions, manager.session_id).path == manager.path
    assert find_session_path(sessions, manager.session_id) == manager.path
    delete_session(manager.path)
    assert [info.path for info in list_sessions(sessions)] == [hand_copy]  # a copy made by hand is the user's
    hand_copy.unlink()
    with pytest.raises(SessionNotFoundError):
        find_session(sessions, manager.session_id)
