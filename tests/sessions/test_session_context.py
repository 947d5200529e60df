from __future__ import annotations

from pathlib import Path

from kit.sessions import make_assistant, make_user

from prime_jupyter.ai.types import UserMessage
from prime_jupyter.sessions.context import ContextFold, build_context
from prime_jupyter.sessions.entries import (
    AnyEntry,
    BranchSummaryEntry,
    CompactionEntry,
    CompactionSummaryMessage,
    CustomEntry,
    CustomMessage,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UnknownEntry,
)
from prime_jupyter.sessions.manager import SessionManager


def test_transcript_only_messages_become_user_messages() -> None:
    path = [
        MessageEntry(id="a", parent_id=None, message=CustomMessage(custom_type="t", content="from ext")),
        BranchSummaryEntry(id="b", parent_id="a", from_id="z", summary="went away"),
        MessageEntry(id="c", parent_id="b", message=CompactionSummaryMessage(summary="old", tokens_before=1)),
    ]
    context = build_context(path)
    assert all(isinstance(m, UserMessage) for m in context.messages) and context.entry_ids == ["a", "b", "c"]
    texts = [m.text() for m in context.messages]
    assert texts[0] == "from ext" and "went away" in texts[1] and "compacted" in texts[2]


def test_bookkeeping_entries_are_skipped() -> None:
    path = [
        MessageEntry(id="a", parent_id=None, message=make_user("q")),
        LabelEntry(id="b", parent_id="a", target_id="a", label="x"),
        SessionInfoEntry(id="c", parent_id="b", name="n"),
        CustomEntry(id="d", parent_id="c", custom_type="ext", data=1),
        UnknownEntry.model_validate({"type": "future", "id": "e", "parentId": "d"}),
        BranchSummaryEntry(id="f", parent_id="e", from_id="z", summary=""),
        MessageEntry(id="g", parent_id="f", message=make_assistant("a")),
    ]
    assert build_context(path).entry_ids == ["a", "g"]


def test_compaction_with_unknown_kept_entry_keeps_only_what_follows() -> None:
    path = [
        MessageEntry(id="a", parent_id=None, message=make_user("old")),
        CompactionEntry(id="b", parent_id="a", summary="S", first_kept_entry_id="gone", tokens_before=1),
        MessageEntry(id="c", parent_id="b", message=make_user("new")),
    ]
    assert build_context(path).entry_ids == ["b", "c"]


def test_latest_compaction_on_the_path_wins() -> None:
    path = [
        MessageEntry(id="a", parent_id=None, message=make_user("one")),
        MessageEntry(id="b", parent_id="a", message=make_user("two")),
        CompactionEntry(id="c", parent_id="b", summary="S1", first_kept_entry_id="b", tokens_before=1),
        MessageEntry(id="d", parent_id="c", message=make_user("three")),
        CompactionEntry(id="e", parent_id="d", summary="S2", first_kept_entry_id="d", tokens_before=1),
    ]
    context = build_context(path)
    assert context.entry_ids == ["e", "d"] and "S2" in context.messages[0].text()


def test_empty_path_gives_empty_context() -> None:
    context = build_context([])
    assert (context.messages, context.provider, context.thinking_level) == ([], None, None)


def _long_path() -> list[AnyEntry]:
    entries: list[AnyEntry] = [
        ModelChangeEntry(id="m", parent_id=None, provider="anthropic", model_id="m1"),
        MessageEntry(id="a", parent_id="m", message=make_user("one")),
        MessageEntry(id="b", parent_id="a", message=make_assistant("two")),
        ThinkingLevelChangeEntry(id="t", parent_id="b", thinking_level="high"),
        MessageEntry(id="c", parent_id="t", message=CustomMessage(custom_type="x", content="three")),
        CompactionEntry(id="d", parent_id="c", summary="S", first_kept_entry_id="b", tokens_before=9),
        BranchSummaryEntry(id="e", parent_id="d", from_id="z", summary="away"),
        MessageEntry(id="f", parent_id="e", message=make_user("four")),
    ]
    return entries


def test_a_fold_extended_entry_by_entry_equals_the_context_built_from_the_path() -> None:
    path = _long_path()
    fold = ContextFold()
    for end, entry in enumerate(path, start=1):
        assert fold.extend(entry, path[:end])
        assert fold.context() == build_context(path[:end])
    assert fold.leaf_id == "f" and fold.context().entry_ids == ["d", "b", "c", "e", "f"]
    assert (fold.context().provider, fold.context().thinking_level) == ("anthropic", "high")


def test_a_fold_cannot_take_a_compaction_without_its_path() -> None:
    path = _long_path()
    fold = ContextFold(path[:5])
    assert not fold.extend(path[5]) and fold.leaf_id == "c"


def test_each_context_from_a_fold_has_lists_of_its_own() -> None:
    path = _long_path()
    fold = ContextFold(path)
    first = fold.context()
    first.messages.append(make_user("x"))
    first.entry_ids.append("x")
    assert fold.context() == build_context(path)


def test_following_entries_in_file_order_stops_at_the_first_that_branches() -> None:
    path = _long_path()
    fold = ContextFold()
    for end in range(1, len(path) + 1):
        fold.follow(path[end - 1], path[:end])
    assert fold.straight and fold.context() == build_context(path)
    fold.follow(MessageEntry(id="x", parent_id="a", message=make_user("sibling")), [*path, path[1]])
    assert not fold.straight


def test_the_latest_permission_mode_on_the_path_is_the_contexts(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(make_user("one"))
    manager.append_permission_mode_change("plan")
    branch = manager.append_permission_mode_change("ask")
    assert manager.build_context().permission_mode == "ask"
    manager.append_permission_mode_change("auto")
    manager.navigate(branch.id)
    assert manager.build_context().permission_mode == "ask"
    assert manager.build_context().messages[0].text() == "one"
