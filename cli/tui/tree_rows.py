"""The session tree as rows to draw: filtered, folded, indented where the conversation branches.

A transcript is a tree of entries (`SessionView.nodes`, parents before children). The tree screen shows
the conversation's entries (messages, compactions, branch summaries; bookkeeping such as labels and
names is not shown), or only the user messages, or only the labelled entries. A hidden entry's children
hang from its nearest shown ancestor. A chain of single children stays at one depth; the children of
an entry with several go one step deeper, and such a branch point can be folded (its descendants are
not shown). Walks are iterative: a branch of 20,000 entries is no deeper a stack than one of two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from prime_jupyter.protocol.common import TreeNode
from prime_jupyter.protocol.snapshot import SessionView

__all__ = ["TreeFilter", "TreeRow", "active_path", "tree_rows", "visible_anchor"]

TreeFilter = Literal["all", "user", "labelled"]
Starts = Literal["", "branch", "last branch"]

_CONVERSATION = frozenset({"message", "compaction", "branch_summary"})


@dataclass(frozen=True, slots=True)
class TreeRow:
    node: TreeNode
    depth: int
    branches: int
    """How many shown children the entry has (more than one: a branch point, which can be folded)."""
    folded: bool
    on_path: bool
    """On the active branch (root → leaf)."""
    current: bool
    """The shown entry the session is at (the leaf, or its nearest shown ancestor)."""
    starts: Starts = ""
    """A child of a branch point starts a branch (the last one of them, the last branch)."""


def _shown(node: TreeNode, view_filter: TreeFilter) -> bool:
    if view_filter == "user":
        return node.type == "message" and node.role == "user"
    if view_filter == "labelled":
        return node.label is not None
    return node.type in _CONVERSATION


def active_path(view: SessionView) -> list[str]:
    """The ids from the root to the leaf, every entry type included."""
    parent = {node.id: node.parent_id for node in view.nodes}
    path: list[str] = []
    at = view.leaf_id
    while at is not None and at in parent:
        path.append(at)
        at = parent[at]
    path.reverse()
    return path


def visible_anchor(view: SessionView, entry_id: str | None, view_filter: TreeFilter) -> str | None:
    """`entry_id` when it is shown, else its nearest shown ancestor (None: none is)."""
    by_id = {node.id: node for node in view.nodes}
    at = entry_id
    while at is not None and at in by_id:
        if _shown(by_id[at], view_filter):
            return at
        at = by_id[at].parent_id
    return None


def tree_rows(
    view: SessionView, view_filter: TreeFilter = "all", folded: frozenset[str] = frozenset()
) -> list[TreeRow]:
    """The rows to draw, in order (depth first, children in file order)."""
    nodes: Sequence[TreeNode] = view.nodes
    anchor: dict[str, str | None] = {}
    """Each entry's nearest shown ancestor-or-self."""
    children: dict[str | None, list[TreeNode]] = {}
    for node in nodes:
        up = anchor.get(node.parent_id) if node.parent_id is not None else None
        if _shown(node, view_filter):
            children.setdefault(up, []).append(node)
            anchor[node.id] = node.id
        else:
            anchor[node.id] = up
    path = set(active_path(view))
    current = anchor.get(view.leaf_id) if view.leaf_id is not None else None
    rows: list[TreeRow] = []
    stack: list[tuple[TreeNode, int, Starts]] = []
    _push(stack, children.get(None, []), -1)
    while stack:
        node, depth, starts = stack.pop()
        kids = children.get(node.id, [])
        is_folded = node.id in folded and len(kids) > 1
        rows.append(TreeRow(node, depth, len(kids), is_folded, node.id in path, node.id == current, starts))
        if not is_folded:
            _push(stack, kids, depth)
    return rows


def _push(stack: list[tuple[TreeNode, int, Starts]], kids: list[TreeNode], depth: int) -> None:
    """Put `kids` of an entry at `depth` on the stack, the first on top: one continues the chain at the
    same depth, several start branches one step deeper."""
    if len(kids) <= 1:
        stack.extend((kid, max(depth, 0), "") for kid in kids)
        return
    branch: list[Starts] = ["branch"]
    starts = branch * (len(kids) - 1) + ["last branch"]
    stack.extend((kid, depth + 1, start) for kid, start in reversed(list(zip(kids, starts, strict=True))))
