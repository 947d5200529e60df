from __future__ import annotations

from pathlib import Path

import pytest
from kit.sessions import make_assistant, make_result, make_user

from prime_jupyter.errors import SessionError
from prime_jupyter.sessions.context import SessionContext, build_context
from prime_jupyter.sessions.entries import BranchSummaryEntry, CompactionEntry
from prime_jupyter.sessions.manager import SessionManager


def _texts(manager: SessionManager) -> list[str]:
    return [m.text() for m in manager.build_context().messages]


def test_new_session_has_a_uuid7_id_and_absolute_cwd(tmp_path: Path) -> None:
    manager = SessionManager.create(".", tmp_path)
    assert manager.session_id[14] == "7" and Path(manager.cwd).is_absolute()
    assert manager.path == tmp_path / f"{manager.session_id}.jsonl"


def test_no_file_before_the_first_message(tmp_path: Path) -> None:
    manager = SessionManager.create(tmp_path, tmp_path / "s")
    manager.append_model_change("anthropic", "m1")
    assert manager.path is not None and not manager.path.exists() and not manager.is_written


def test_a_users_prompt_is_on_disk_before_its_id_is_handed_out(tmp_path: Path) -> None:
    """Issue 15: `jupyter prime -p --mode json` printed the prompt's `entryId` before any file existed."""
    manager = SessionManager.create(tmp_path, tmp_path / "s")
    manager.append_model_change("anthropic", "m1")
    prompt = manager.append_message(make_user("hi"))
    assert manager.path is not None and SessionManager.open(manager.path).get_entry(prompt.id) is not None


def test_first_assistant_message_writes_header_and_buffered_entries(tmp_path: Path) -> None:
    manager = SessionManager.create(tmp_path, tmp_path / "s")
    manager.append_model_change("anthropic", "m1")
    manager.append_message(make_user("hi"))
    manager.append_message(make_assistant("hello"))
    manager.append_message(make_user("more"))
    assert manager.path is not None
    assert SessionManager.open(manager.path).entries == manager.entries


def test_flush_now_writes_an_unanswered_session(tmp_path: Path) -> None:
    manager = SessionManager.create(tmp_path, tmp_path / "s")
    manager.flush_now()
    manager.append_message(make_user("hi"))
    assert manager.path is not None
    reopened = SessionManager.open(manager.path)
    assert reopened.session_id == manager.session_id and len(reopened.entries) == 1


def test_in_memory_session_never_writes(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(make_user("hi"))
    manager.append_message(make_assistant("hello"))
    manager.flush_now()
    assert manager.path is None and list(tmp_path.iterdir()) == [] and _texts(manager) == ["hi", "hello"]


def test_appends_chain_from_the_leaf(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    first = manager.append_message(make_user("a"))
    second = manager.append_thinking_level_change("high")
    assert (first.parent_id, second.parent_id, manager.leaf_id) == (None, first.id, second.id)


def test_branch_appends_a_sibling_in_the_same_file(tmp_path: Path) -> None:
    manager = SessionManager.create(tmp_path, tmp_path / "s")
    question = manager.append_message(make_user("q"))
    first = manager.append_message(make_assistant("answer one"))
    manager.branch(question.id)
    second = manager.append_message(make_assistant("answer two"))
    assert manager.path is not None
    reopened = SessionManager.open(manager.path)
    assert [e.id for e in reopened.children(question.id)] == [first.id, second.id]
    assert _texts(reopened) == ["q", "answer two"]


def test_context_follows_the_branch_of_the_leaf(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    question = manager.append_message(make_user("q"))
    manager.append_message(make_assistant("one"))
    other = manager.append_message(make_user("follow-up"))
    manager.branch(question.id)
    manager.append_message(make_assistant("two"))
    assert _texts(manager) == ["q", "two"]
    manager.branch(other.id)
    assert _texts(manager) == ["q", "one", "follow-up"]


def test_reset_leaf_starts_a_new_root(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(make_user("a"))
    manager.reset_leaf()
    root = manager.append_message(make_user("b"))
    assert root.parent_id is None and _texts(manager) == ["b"] and len(manager.children(None)) == 2


def test_branch_to_an_unknown_entry_fails(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="no entry"):
        SessionManager.in_memory(tmp_path).branch("deadbeef")


def test_context_reports_model_and_thinking_level(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_model_change("openai", "gpt")
    manager.append_thinking_level_change("low")
    manager.append_message(make_user("a"))
    context = manager.build_context()
    assert (context.provider, context.model_id, context.thinking_level) == ("openai", "gpt", "low")


def test_assistant_message_sets_the_model_it_came_from(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_model_change("openai", "gpt")
    manager.append_message(make_assistant("x", model="claude"))
    assert (manager.build_context().provider, manager.build_context().model_id) == ("anthropic", "claude")


def test_entry_ids_point_at_the_entries_of_the_messages(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    ids = [manager.append_message(make_user("a")).id]
    manager.append_label(ids[0], "x")
    ids.append(manager.append_message(make_assistant("b")).id)
    assert manager.build_context().entry_ids == ids


def test_labels_and_name_take_the_latest_entry(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    a = manager.append_message(make_user("a"))
    manager.append_label(a.id, "first")
    manager.append_label(a.id, "second")
    manager.append_session_info("  Old  ")
    manager.append_session_info("New")
    assert (dict(manager.labels), manager.name) == ({a.id: "second"}, "New")
    manager.append_label(a.id, None)
    assert dict(manager.labels) == {}


def test_navigate_to_user_message_moves_to_its_parent_and_returns_text(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(make_user("first"))
    answer = manager.append_message(make_assistant("one"))
    second = manager.append_message(make_user("second question"))
    result = manager.navigate(second.id)
    assert (result.editor_text, result.summary_entry, manager.leaf_id) == ("second question", None, answer.id)


def test_navigate_to_root_user_message_empties_the_context(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    root = manager.append_message(make_user("first"))
    manager.append_message(make_assistant("one"))
    assert manager.navigate(root.id).editor_text == "first" and manager.leaf_id is None


def test_navigate_to_other_entry_makes_it_the_leaf(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(make_user("q"))
    answer = manager.append_message(make_assistant("a"))
    manager.append_message(make_user("later"))
    result = manager.navigate(answer.id)
    assert (result.editor_text, manager.leaf_id) == (None, answer.id)


def test_navigate_with_summary_records_the_abandoned_branch(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(make_user("q"))
    answer = manager.append_message(make_assistant("a"))
    manager.append_message(make_user("detour"))
    old_leaf = manager.append_message(make_assistant("detour answer"))
    abandoned = manager.branch_between(old_leaf.id, answer.id)
    result = manager.navigate(answer.id, summary="tried a detour")
    assert isinstance(result.summary_entry, BranchSummaryEntry)
    assert (result.summary_entry.from_id, result.summary_entry.parent_id) == (old_leaf.id, answer.id)
    assert [e.id for e in abandoned] == [e.id for e in manager.entries[2:4]]
    assert _texts(manager)[-1].endswith("tried a detour\n</summary>")


def test_compaction_replaces_history_before_the_kept_entry(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(make_user("old question"))
    manager.append_message(make_assistant("old answer"))
    kept = manager.append_message(make_user("kept question"))
    manager.append_message(make_assistant("kept answer"))
    compaction = manager.append_compaction("SUMMARY", kept.id, tokens_before=123)
    manager.append_message(make_user("new"))
    context = manager.build_context()
    assert _texts(manager)[1:] == ["kept question", "kept answer", "new"]
    assert "<summary>\nSUMMARY\n</summary>" in _texts(manager)[0] and context.entry_ids[0] == compaction.id


def test_compaction_on_another_branch_does_not_apply(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    question = manager.append_message(make_user("q"))
    answer = manager.append_message(make_assistant("a"))
    manager.append_compaction("S", answer.id, tokens_before=1)
    manager.branch(question.id)
    manager.append_message(make_assistant("other"))
    assert _texts(manager) == ["q", "other"]
    assert not any(isinstance(e, CompactionEntry) for e in manager.path_to(manager.leaf_id))


def test_resume_gives_an_identical_context(tmp_path: Path) -> None:
    manager = SessionManager.create(tmp_path, tmp_path / "s")
    manager.append_model_change("anthropic", "m1")
    manager.append_thinking_level_change("medium")
    question = manager.append_message(make_user("q"))
    manager.append_message(make_assistant("calling", calls=()))
    manager.append_message(make_result("c1", "out"))
    manager.branch(question.id)
    manager.append_message(make_assistant("other branch"))
    kept = manager.append_message(make_user("next"))
    manager.append_message(make_assistant("done"))
    manager.append_compaction("sum", kept.id, tokens_before=10)
    manager.append_message(make_user("after"))
    assert manager.path is not None
    reopened = SessionManager.open(manager.path)
    assert reopened.build_context() == manager.build_context() and reopened.leaf_id == manager.leaf_id


def _fresh_context(manager: SessionManager) -> SessionContext:
    return build_context(manager.path_to(manager.leaf_id))


def test_the_kept_context_follows_appends_branches_and_compactions(tmp_path: Path) -> None:
    manager = SessionManager.create(tmp_path, tmp_path / "s")
    question = manager.append_message(make_user("q"))
    steps = [
        lambda: manager.append_message(make_assistant("a", model="m2")),
        lambda: manager.append_thinking_level_change("high"),
        lambda: manager.append_compaction("S", question.id, tokens_before=5),
        lambda: manager.append_message(make_user("after")),
        lambda: manager.branch(question.id),
        lambda: manager.append_message(make_assistant("other")),
        lambda: manager.navigate(question.id, summary="left"),
        lambda: manager.reset_leaf(),
        lambda: manager.append_model_change("openai", "gpt"),
    ]
    for step in steps:
        step()
        assert manager.build_context() == _fresh_context(manager)


def test_a_context_handed_out_is_the_callers_to_change(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(make_user("q"))
    manager.build_context().messages.append(make_user("not in the transcript"))
    assert _texts(manager) == ["q"]


def test_reopening_a_branched_file_gives_the_context_of_its_last_entry(tmp_path: Path) -> None:
    manager = SessionManager.create(tmp_path, tmp_path / "s")
    question = manager.append_message(make_user("q"))
    manager.append_message(make_assistant("one"))
    manager.append_message(make_user("more"))
    manager.branch(question.id)
    manager.append_message(make_assistant("two"))
    assert manager.path is not None
    reopened = SessionManager.open(manager.path)
    assert _texts(reopened) == ["q", "two"] and reopened.build_context() == _fresh_context(reopened)


def test_reopening_a_compacted_file_gives_the_compacted_context(tmp_path: Path) -> None:
    manager = SessionManager.create(tmp_path, tmp_path / "s")
    manager.append_message(make_user("old"))
    kept = manager.append_message(make_assistant("kept"))
    manager.append_compaction("S", kept.id, tokens_before=5)
    manager.append_message(make_user("new"))
    assert manager.path is not None
    reopened = SessionManager.open(manager.path)
    assert _texts(reopened)[1:] == ["kept", "new"] and reopened.build_context() == _fresh_context(reopened)
