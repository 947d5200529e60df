"""The rows of the tree screen, from a session view: filters, branches, folding, where the session is."""

from __future__ import annotations

from prime_jupyter.cli.tui.tree_rows import active_path, tree_rows, visible_anchor

from prime_jupyter.protocol.common import TreeNode
from prime_jupyter.protocol.snapshot import SessionView


def node(entry_id: str, parent: str | None, role: str | None = None, kind: str = "message", **more: str) -> TreeNode:
    return TreeNode(id=entry_id, parent_id=parent, type=kind, timestamp="t", role=role, preview=entry_id, **more)


VIEW = SessionView(
    cwd="/w",
    leaf_id="lab",
    nodes=[
        node("m", None, kind="model_change"),
        node("u1", "m", "user", label="start"),
        node("a1", "u1", "assistant"),
        node("u2", "a1", "user"),
        node("a2", "u2", "assistant"),
        node("u3", "a1", "user"),
        node("a3", "u3", "assistant"),
        node("lab", "a3", kind="label"),
    ],
)


def test_rows_branch_below_a_branch_point_and_bookkeeping_is_not_shown() -> None:
    rows = tree_rows(VIEW)
    assert [(r.node.id, r.depth, r.starts) for r in rows] == [
        ("u1", 0, ""),
        ("a1", 0, ""),
        ("u2", 1, "branch"),
        ("a2", 1, ""),
        ("u3", 1, "last branch"),
        ("a3", 1, ""),
    ]
    assert [r.node.id for r in rows if r.on_path] == ["u1", "a1", "u3", "a3"]
    assert [r.node.id for r in rows if r.current] == ["a3"]  # the leaf is a label entry: its shown ancestor
    assert rows[1].branches == 2


def test_filters_hang_children_from_the_nearest_shown_ancestor() -> None:
    assert [(r.node.id, r.depth) for r in tree_rows(VIEW, "user")] == [("u1", 0), ("u2", 1), ("u3", 1)]
    assert [r.node.id for r in tree_rows(VIEW, "labelled")] == ["u1"]
    assert visible_anchor(VIEW, "lab", "user") == "u3"
    assert visible_anchor(VIEW, "m", "user") is None


def test_a_folded_branch_point_hides_its_descendants() -> None:
    rows = tree_rows(VIEW, folded=frozenset({"a1", "u2"}))  # u2 has one child: not a branch point, not folded
    assert [r.node.id for r in rows] == ["u1", "a1"] and rows[1].folded


def test_the_active_path_runs_root_to_leaf() -> None:
    assert active_path(VIEW) == ["m", "u1", "a1", "u3", "a3", "lab"]
    chain = [node(f"n{i}", f"n{i - 1}" if i else None) for i in range(20000)]
    long = SessionView(cwd="/", leaf_id="n19999", nodes=chain)
    assert len(tree_rows(long)) == 20000  # no recursion: a long chain is a flat walk
