from __future__ import annotations

import gc
import json
import logging
from collections.abc import Sequence
from pathlib import Path

import pytest
from kit.sessions import make_assistant, make_user

from prime_jupyter.ai.types import UserMessage
from prime_jupyter.errors import SessionError, SessionNotFoundError
from prime_jupyter.sessions.entries import AnyEntry, MessageEntry, RawEntry, UnknownEntry
from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.sessions.store import TranscriptWriter, load_transcript
from prime_jupyter.sessions.tree import id_of


def _written_session(tmp_path: Path, *texts: str) -> SessionManager:
    manager = SessionManager.create(tmp_path, tmp_path / "sessions")
    for text in texts:
        manager.append_message(make_user(text))
        manager.append_message(make_assistant(f"re: {text}"))
    return manager


def _path(manager: SessionManager) -> Path:
    assert manager.path is not None
    return manager.path


def test_line_separators_inside_text_survive_write_and_load(tmp_path: Path) -> None:
    text = "para\u2028graph\u2029end\r\nnext\x85line"
    manager = _written_session(tmp_path, text)
    assert "\u2028".encode() in _path(manager).read_bytes()  # written raw, not escaped
    first = SessionManager.open(_path(manager)).build_context().messages[0]
    assert isinstance(first, UserMessage) and first.text() == text


def test_half_a_character_is_stored_replaced_and_the_line_loads(tmp_path: Path) -> None:
    """A lone surrogate (an undecodable argv byte, half an emoji from a provider) cannot be UTF-8."""
    manager = _written_session(tmp_path, "argv byte \udcff, half \ud83d, whole \ud83d\ude00")
    reopened = SessionManager.open(_path(manager))
    assert reopened.load_warnings == []
    first = reopened.build_context().messages[0]
    assert isinstance(first, UserMessage) and first.text() == "argv byte \ufffd, half \ufffd, whole \U0001f600"


def test_a_line_holding_an_escaped_half_character_loads_like_any_other(tmp_path: Path) -> None:
    """JavaScript's `JSON.stringify` (the seed system's transcripts) escapes a lone surrogate as `\\ud83d`,
    which pydantic-core's JSON parser refuses."""
    manager = _written_session(tmp_path, "one")
    path = _path(manager)
    message = {"role": "user", "content": "half \ud83d", "timestamp": 1}
    line = {"type": "message", "id": "b0000001", "parentId": manager.leaf_id, "message": message}
    with path.open("ab") as handle:
        handle.write(json.dumps(line).encode() + b"\n")
    assert b"\\ud83d" in path.read_bytes()
    reopened = SessionManager.open(path)
    assert reopened.load_warnings == []
    messages = reopened.build_context().messages
    assert len(messages) == 3 and messages[-1].text() == "half \ud83d"


def test_truncated_last_line_is_skipped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    manager = _written_session(tmp_path, "one", "two")
    path = _path(manager)
    path.write_bytes(path.read_bytes()[:-25])  # a crash in the middle of the last write
    with caplog.at_level(logging.WARNING):
        reopened = SessionManager.open(path)
    assert len(reopened.entries) == 3 and "truncated last line" in caplog.text
    assert reopened.load_warnings == ["truncated last line skipped (not valid JSON)"]


def test_append_after_a_truncated_line_starts_a_fresh_line(tmp_path: Path) -> None:
    manager = _written_session(tmp_path, "one", "two")
    path = _path(manager)
    path.write_bytes(path.read_bytes()[:-25])
    reopened = SessionManager.open(path)
    added = reopened.append_message(make_user("three"))
    again = SessionManager.open(path)
    assert again.entries[-1] == added and again.entries[-1].parent_id == reopened.entries[-2].id


def test_complete_last_line_without_newline_is_kept_and_repaired(tmp_path: Path) -> None:
    manager = _written_session(tmp_path, "one")
    path = _path(manager)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    reopened = SessionManager.open(path)
    reopened.append_message(make_user("two"))
    assert [type(e) for e in SessionManager.open(path).entries] == [MessageEntry] * 3
    assert SessionManager.open(path).load_warnings == []


def test_corrupt_middle_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    manager = _written_session(tmp_path, "one", "two")
    path = _path(manager)
    lines = path.read_bytes().split(b"\n")
    lines[2] = b'{"type":"message","id":"bro'
    path.write_bytes(b"\n".join(lines))
    reopened = SessionManager.open(path)
    assert len(reopened.entries) == 3
    assert reopened.load_warnings == ["line 3: corrupt line skipped (not valid JSON)"]


def test_unknown_entry_type_stays_in_the_tree(tmp_path: Path) -> None:
    manager = _written_session(tmp_path, "one")
    path = _path(manager)
    leaf = manager.leaf_id
    future = {"type": "service_tier_change", "id": "f0000001", "parentId": leaf, "timestamp": "t", "serviceTier": "x"}
    with path.open("ab") as handle:
        handle.write(json.dumps(future).encode() + b"\n")
    reopened = SessionManager.open(path)
    child = reopened.append_message(make_user("after"))
    context = SessionManager.open(path).build_context()
    assert isinstance(reopened.entries[2], UnknownEntry) and child.parent_id == "f0000001"
    assert [m.role for m in context.messages] == ["user", "assistant", "user"]
    assert reopened.load_warnings == ["1 entry of unknown type 'service_tier_change' kept"]


def test_invalid_known_entry_is_kept_opaque(tmp_path: Path) -> None:
    manager = _written_session(tmp_path, "one")
    path = _path(manager)
    odd = {"type": "message", "id": "b0000001", "parentId": manager.leaf_id, "message": {"role": "bashExecution"}}
    with path.open("ab") as handle:
        handle.write(json.dumps(odd).encode() + b"\n")
    reopened = SessionManager.open(path)
    assert isinstance(reopened.entries[-1], UnknownEntry) and len(reopened.build_context().messages) == 2
    assert "invalid 'message' entry kept opaque" in reopened.load_warnings[0]


def test_missing_file_raises_session_not_found(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFoundError):
        load_transcript(tmp_path / "nope.jsonl")


def test_file_without_header_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"hello": 1}\n')
    with pytest.raises(SessionError, match="not a session transcript"):
        SessionManager.open(path)


def test_writer_with_fsync_writes_the_same_bytes(tmp_path: Path) -> None:
    writer = TranscriptWriter(tmp_path / "a" / "f.jsonl", fsync=True)
    writer.create([b"1\n", b"2\n"])
    writer.append(b"3\n")
    assert writer.path.read_bytes() == b"1\n2\n3\n"


def test_writer_refuses_to_overwrite_an_existing_file(tmp_path: Path) -> None:
    (tmp_path / "f.jsonl").write_bytes(b"x\n")
    with pytest.raises(SessionError, match="already exists"):
        TranscriptWriter(tmp_path / "f.jsonl").create([b"y\n"])


def test_loading_leaves_the_garbage_collector_to_the_host(tmp_path: Path) -> None:
    """Issue 12: no library module switches the collector; only the hosts' policy does."""
    path = _path(_written_session(tmp_path, "one"))
    frozen = gc.get_freeze_count()
    SessionManager.open(path)
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    gc.disable()
    try:
        SessionManager.open(path)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_each_kept_entry_is_seen_once_in_file_order_while_loading(tmp_path: Path) -> None:
    manager = _written_session(tmp_path, "one", "two")
    path = _path(manager)
    lines = path.read_bytes().split(b"\n")
    lines[2] = b"{not json"
    path.write_bytes(b"\n".join([*lines[:-1], lines[1], b"  ", b""]))  # line 2 again (a duplicate id), a blank line
    seen: list[tuple[str, str]] = []

    def note(entry: AnyEntry | RawEntry, so_far: Sequence[AnyEntry | RawEntry]) -> None:
        seen.append((id_of(entry), id_of(so_far[-1])))

    loaded = load_transcript(path, on_entry=note)
    kept = [e.id for e in manager.entries if e.id != manager.entries[1].id]
    assert seen == [(entry_id, entry_id) for entry_id in kept] and [id_of(e) for e in loaded.entries] == kept
    assert loaded.warnings == [
        "line 3: corrupt line skipped (not valid JSON)",
        f"line 6: duplicate entry id {manager.entries[0].id!r} skipped",
    ]


def test_a_file_of_crlf_lines_keeps_its_carriage_returns_out_of_the_entries(tmp_path: Path) -> None:
    path = _path(_written_session(tmp_path, "one"))
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert [m.text() for m in SessionManager.open(path).build_context().messages] == ["one", "re: one"]
