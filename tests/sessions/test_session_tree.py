from __future__ import annotations

from kit.sessions import make_user

from prime_jupyter.ai.types import UserMessage
from prime_jupyter.sessions.entries import LabelEntry, MessageEntry, RawEntry, SessionInfoEntry
from prime_jupyter.sessions.tree import SessionTree, id_of, is_raw, parent_id_of


def entry(entry_id: str, parent_id: str | None) -> MessageEntry:
    return MessageEntry(id=entry_id, parent_id=parent_id, message=make_user(entry_id))


def ids(entries: object) -> list[str]:
    assert isinstance(entries, list)
    return [e.id for e in entries]


def test_path_runs_from_the_root_to_the_entry() -> None:
    tree = SessionTree([entry("a", None), entry("b", "a"), entry("c", "a"), entry("d", "c")])
    assert ids(tree.path_to("d")) == ["a", "c", "d"] and ids(tree.path_to("b")) == ["a", "b"]
    assert tree.path_to(None) == [] and tree.path_to("nope") == []


def test_an_entry_whose_parent_is_missing_starts_the_path() -> None:
    tree = SessionTree([entry("b", "gone"), entry("c", "b")])
    assert ids(tree.path_to("c")) == ["b", "c"]


def test_a_parent_that_comes_later_in_the_file_is_followed() -> None:
    tree = SessionTree([entry("c", "b"), entry("b", "a"), entry("a", None)])
    assert ids(tree.path_to("c")) == ["a", "b", "c"]


def test_a_parent_added_after_its_child_is_found() -> None:
    tree = SessionTree([entry("c", "b")])
    tree.add(entry("b", None))
    assert ids(tree.path_to("c")) == ["b", "c"]


def test_parent_cycles_are_cut() -> None:
    tree = SessionTree([entry("a", "c"), entry("b", "a"), entry("c", "b"), entry("s", "s")])
    assert ids(tree.path_to("c")) == ["a", "b", "c"]
    assert ids(tree.path_to("a")) == ["b", "c", "a"]
    assert ids(tree.path_to("s")) == ["s"]


def test_children_include_entries_added_after_the_first_question() -> None:
    tree = SessionTree([entry("a", None), entry("b", "a")])
    assert ids(tree.children("a")) == ["b"]
    tree.add(entry("c", "a"))
    tree.add(entry("r", None))
    assert ids(tree.children("a")) == ["b", "c"] and ids(tree.children(None)) == ["a", "r"]


def test_labels_and_name_are_read_from_loaded_and_added_entries() -> None:
    tree = SessionTree([entry("a", None), LabelEntry(id="l", parent_id="a", target_id="a", label="x")])
    tree.add(SessionInfoEntry(id="n", parent_id="l", name=" Named "))
    assert (dict(tree.labels), tree.name) == ({"a": "x"}, "Named")


def test_branch_between_is_what_the_leaf_leaves_behind() -> None:
    tree = SessionTree([entry("a", None), entry("b", "a"), entry("c", "b"), entry("d", "a")])
    assert ids(tree.branch_between("c", "d")) == ["b", "c"]
    assert "c" in tree and tree.get("c") is tree.entries[2] and tree.new_id() not in tree


def test_a_loaded_line_stays_data_until_asked_for_and_the_accessors_read_both_forms() -> None:
    line: RawEntry = {
        "type": "message",
        "id": "b",
        "parentId": "a",
        "timestamp": "2026-01-02T03:04:05.678Z",
        "message": {"role": "user", "content": "hi", "timestamp": 5},
    }
    tree = SessionTree([entry("a", None), line])
    items = tree.items_to("b")
    assert [is_raw(i) for i in items] == [False, True] and items[1] is line
    assert [id_of(i) for i in items] == ["a", "b"] and [parent_id_of(i) for i in items] == [None, "a"]
    read = tree.get("b")
    assert isinstance(read, MessageEntry) and read.message == UserMessage(content="hi", timestamp=5)
    assert not is_raw(tree.items_to("b")[1]) and line["message"] == {"role": "user", "content": "hi", "timestamp": 5}
