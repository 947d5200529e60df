"""What a fork copies: the path root → fork point, labels, and the model it resumes with.

Planning is pure (no files); `SessionManager.fork` writes the result into a new session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from prime_jupyter.ai.types import UserMessage
from prime_jupyter.errors import SessionError
from prime_jupyter.sessions.context import SessionContext, build_context
from prime_jupyter.sessions.entries import (
    AnyEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    PermissionModeChangeEntry,
    ThinkingLevelChangeEntry,
)
from prime_jupyter.sessions.tree import SessionTree

__all__ = ["ForkPlan", "ForkPosition", "plan_fork", "user_text"]

ForkPosition: TypeAlias = Literal["before", "at"]


@dataclass(frozen=True)
class ForkPlan:
    """Entries of the new session (parent-linked, root first) and the text to pre-fill an editor with."""

    entries: list[AnyEntry]
    selected_text: str | None


def user_text(entry: AnyEntry | None) -> str | None:
    """The text of a user message entry, else None."""
    if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
        return entry.message.text()
    return None


def plan_fork(tree: SessionTree, entry_id: str | None, position: ForkPosition, source: SessionContext) -> ForkPlan:
    """Plan a fork of `tree` at (`"at"`) or just before (`"before"`) `entry_id`.

    "before" copies root → the entry's parent and returns a user message's text as `selected_text`;
    "at" copies root → the entry. Labels on the copied path are re-created after it. When the copied
    path would resume with another model, thinking level or permission mode than `source` (the source's
    context at its leaf), a `model_change` / `thinking_level_change` / `permission_mode_change` is
    appended so the fork continues as the user left off. An empty copy stays empty.
    """
    entry = tree.get(entry_id) if entry_id is not None else None
    if entry_id is not None and entry is None:
        raise SessionError(f"cannot fork: no entry {entry_id!r} in this session")
    selected_text = None
    end_id = entry_id
    if position == "before" and entry is not None:
        end_id, selected_text = entry.parent_id, user_text(entry)
    copy = SessionTree()
    for original in tree.path_to(end_id):
        if not isinstance(original, LabelEntry):
            _add_linked(copy, original)
    if len(copy):
        _recreate_labels(copy, tree)
        _carry_settings(copy, source)
    return ForkPlan(list(copy.entries), selected_text)


def _leaf(tree: SessionTree) -> str | None:
    return tree.last_id()


def _add_linked(copy: SessionTree, entry: AnyEntry) -> None:
    """Add `entry` as a child of the copy's last entry (dropped labels must not break the chain)."""
    parent = _leaf(copy)
    copy.add(entry if entry.parent_id == parent else entry.model_copy(update={"parent_id": parent}))


def _recreate_labels(copy: SessionTree, source: SessionTree) -> None:
    for target_id, label in source.labels.items():
        if target_id in copy:
            copy.add(LabelEntry(id=copy.new_id(), parent_id=_leaf(copy), target_id=target_id, label=label))


def _carry_settings(copy: SessionTree, source: SessionContext) -> None:
    forked = build_context(copy.entries)
    if source.provider and source.model_id:
        if (forked.provider, forked.model_id) != (source.provider, source.model_id):
            copy.add(
                ModelChangeEntry(
                    id=copy.new_id(),
                    parent_id=_leaf(copy),
                    provider=source.provider,
                    model_id=source.model_id,
                )
            )
    if source.thinking_level and forked.thinking_level != source.thinking_level:
        copy.add(
            ThinkingLevelChangeEntry(id=copy.new_id(), parent_id=_leaf(copy), thinking_level=source.thinking_level)
        )
    if source.permission_mode and forked.permission_mode != source.permission_mode:
        copy.add(
            PermissionModeChangeEntry(id=copy.new_id(), parent_id=_leaf(copy), permission_mode=source.permission_mode)
        )
