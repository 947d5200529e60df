from __future__ import annotations

from pathlib import Path

from kit.sessions import make_assistant, make_user

from prime_jupyter.sessions.entries import LabelEntry, MessageEntry, ModelChangeEntry, ThinkingLevelChangeEntry
from prime_jupyter.sessions.manager import SessionManager


def _conversation(tmp_path: Path) -> tuple[SessionManager, list[MessageEntry]]:
    manager = SessionManager.create(tmp_path, tmp_path / "s")
    manager.append_thinking_level_change("high")
    entries = [
        manager.append_message(make_user("first")),
        manager.append_message(make_assistant("one")),
        manager.append_message(make_user("second")),
        manager.append_message(make_assistant("two")),
    ]
    return manager, entries


def _texts(manager: SessionManager) -> list[str]:
    return [m.text() for m in manager.build_context().messages]


def test_fork_before_a_user_message_copies_up_to_its_parent(tmp_path: Path) -> None:
    source, entries = _conversation(tmp_path)
    result = source.fork(entries[2].id, "before")
    assert result.selected_text == "second" and _texts(result.manager) == ["first", "one"]
    assert result.manager.header.parent_session == str(source.path)
    assert result.manager.path is not None and result.manager.path.exists()


def test_fork_at_an_entry_includes_it(tmp_path: Path) -> None:
    source, entries = _conversation(tmp_path)
    result = source.fork(entries[2].id, "at")
    assert result.selected_text is None and _texts(result.manager) == ["first", "one", "second"]


def test_fork_leaves_the_source_untouched(tmp_path: Path) -> None:
    source, entries = _conversation(tmp_path)
    assert source.path is not None
    before = source.path.read_bytes()
    source.fork(entries[2].id, "before")
    assert source.path.read_bytes() == before and source.leaf_id == entries[3].id


def test_fork_gets_a_new_session_id_and_file(tmp_path: Path) -> None:
    source, entries = _conversation(tmp_path)
    fork = source.fork(entries[3].id, "at").manager
    assert fork.session_id != source.session_id and fork.path != source.path
    assert fork.path is not None and fork.path.parent == tmp_path / "s"


def test_fork_before_the_first_user_message_is_empty_with_a_parent(tmp_path: Path) -> None:
    manager = SessionManager.create(tmp_path, tmp_path / "s")
    first = manager.append_message(make_user("first"))
    manager.append_message(make_assistant("one"))
    result = manager.fork(first.id, "before")
    assert (list(result.manager.entries), result.selected_text) == ([], "first")
    assert result.manager.header.parent_session == str(manager.path) and not result.manager.is_written


def test_fork_recreates_labels_on_the_copied_path(tmp_path: Path) -> None:
    source, entries = _conversation(tmp_path)
    source.append_label(entries[0].id, "start")
    source.append_label(entries[3].id, "end")
    fork = source.fork(entries[2].id, "before").manager
    labels = [e for e in fork.entries if isinstance(e, LabelEntry)]
    assert dict(fork.labels) == {entries[0].id: "start"} and len(labels) == 1


def test_dropping_labels_keeps_the_copied_chain_connected(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    first = manager.append_message(make_user("first"))
    manager.append_label(first.id, "mark")
    manager.append_message(make_assistant("one"))
    fork = manager.clone(tmp_path / "s")
    assert _texts(fork) == ["first", "one"]


def test_fork_carries_the_current_model_and_thinking_level(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    first = manager.append_message(make_user("first"))
    manager.append_model_change("openai", "gpt")
    manager.append_thinking_level_change("low")
    fork = manager.fork(first.id, "at", tmp_path / "s").manager
    context = fork.build_context()
    assert (context.provider, context.model_id, context.thinking_level) == ("openai", "gpt", "low")
    assert [type(e) for e in fork.entries] == [MessageEntry, ModelChangeEntry, ThinkingLevelChangeEntry]


def test_fork_adds_no_model_change_when_the_path_already_has_it(tmp_path: Path) -> None:
    source, entries = _conversation(tmp_path)
    fork = source.fork(entries[3].id, "at").manager
    assert [type(e) for e in fork.entries] == [ThinkingLevelChangeEntry] + [MessageEntry] * 4


def test_clone_duplicates_the_active_branch(tmp_path: Path) -> None:
    source, entries = _conversation(tmp_path)
    source.branch(entries[1].id)
    source.append_message(make_user("alternative"))
    clone = source.clone()
    assert _texts(clone) == ["first", "one", "alternative"] and clone.header.parent_session == str(source.path)
    assert clone.path is not None
    assert SessionManager.open(clone.path).build_context() == clone.build_context()


def test_fork_of_an_in_memory_session_stays_in_memory(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(make_user("a"))
    manager.append_message(make_assistant("b"))
    clone = manager.clone()
    assert clone.path is None and clone.header.parent_session is None and _texts(clone) == ["a", "b"]


def test_fork_copies_entries_of_unknown_types_verbatim(tmp_path: Path) -> None:
    source, entries = _conversation(tmp_path)
    assert source.path is not None
    future = '{"type":"git_state","id":"f0000001","parentId":"%s","timestamp":"t","git":{"branch":"main"}}\n'
    with source.path.open("a") as handle:
        handle.write(future % entries[3].id)
    reopened = SessionManager.open(source.path)
    reopened.append_message(make_user("third"))
    fork = reopened.clone()
    assert fork.path is not None and '"git":{"branch":"main"}' in fork.path.read_text()
    assert _texts(SessionManager.open(fork.path)) == ["first", "one", "second", "two", "third"]


def test_fork_carries_the_permission_mode(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    first = manager.append_message(make_user("first"))
    manager.append_permission_mode_change("plan")
    fork = manager.fork(first.id, "at", tmp_path / "s").manager
    assert fork.build_context().permission_mode == "plan"
