"""`SessionManager`: the transcript of one session.

Owns the tree, the leaf pointer and the file. Every append becomes a child of the leaf and advances it;
`branch` moves the leaf back so the next append starts a sibling branch in the same file.

Persistence guard: a new session's file is written only once its first message exists (then the header
and every buffered entry are written at once, later entries appended one by one), so a session nobody
said anything in leaves no file. The first message is a user's prompt too, not only an answer: once a
host has told a client an entry's id (`message_end` with `entryId`), that entry is on disk, and a crash
before the answer loses nothing acknowledged (design.md D5). `flush_now()` writes it immediately (a
server that must list the session before its first prompt needs that). `in_memory` sessions never write.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import JsonValue

from prime_jupyter.errors import SessionError
from prime_jupyter.sessions.context import ContextFold, SessionContext
from prime_jupyter.sessions.entries import (
    AgentMessage,
    AnyEntry,
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    PermissionModeChangeEntry,
    RawEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
)
from prime_jupyter.sessions.fork import ForkPosition, plan_fork, user_text
from prime_jupyter.sessions.ids import uuid7
from prime_jupyter.sessions.store import (
    TranscriptWriter,
    encode_line,
    load_transcript,
    session_file,
)
from prime_jupyter.sessions.tree import SessionTree

__all__ = ["ForkResult", "NavigateResult", "SessionManager"]


@dataclass(frozen=True)
class ForkResult:
    manager: SessionManager
    selected_text: str | None
    """The forked user message's text for "before" forks, to pre-fill the editor."""


@dataclass(frozen=True)
class NavigateResult:
    editor_text: str | None
    """The selected user message's text (the leaf moved to its parent), to pre-fill the editor."""
    summary_entry: BranchSummaryEntry | None


class SessionManager:
    """The transcript of one session: tree, leaf, appends, context, fork, clone and navigation."""

    def __init__(
        self,
        header: SessionHeader,
        tree: SessionTree,
        path: Path | None,
        *,
        written: bool,
        fsync: bool = False,
        load_warnings: Sequence[str] = (),
    ) -> None:
        """Use `create`, `open` or `in_memory`."""
        self._header = header
        self._tree = tree
        self._path = path
        self._writer = TranscriptWriter(path, fsync=fsync) if path is not None else None
        self._written = written
        self._leaf_id = tree.last_id()
        self._fold: ContextFold | None = None
        """The context at some leaf, kept so that asking again (or after an append) is not a rebuild."""
        self.load_warnings: list[str] = list(load_warnings)
        """Problems found while loading (skipped or opaque lines), for front ends to show."""

    @classmethod
    def create(
        cls,
        cwd: str | os.PathLike[str],
        sessions_dir: str | os.PathLike[str],
        parent_session: str | os.PathLike[str] | None = None,
        *,
        fsync: bool = False,
    ) -> SessionManager:
        """A new session stored at `<sessions_dir>/<uuid7>.jsonl` (written by the persistence guard)."""
        header = SessionHeader(
            id=uuid7(),
            cwd=os.path.abspath(cwd),
            parent_session=os.fspath(parent_session) if parent_session is not None else None,
        )
        path = session_file(Path(sessions_dir), header.id)
        return cls(header, SessionTree(), path, written=False, fsync=fsync)

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, fsync: bool = False) -> SessionManager:
        """Load an existing transcript; the leaf is its last entry."""
        file = Path(path).absolute()
        fold = ContextFold()  # folded while each entry is hot; only kept if the file is one straight branch
        loaded = load_transcript(file, on_entry=fold.follow)
        tree = SessionTree(loaded.entries, loaded.positions)
        manager = cls(loaded.header, tree, file, written=True, fsync=fsync, load_warnings=loaded.warnings)
        manager._fold = fold if fold.straight else None
        return manager

    @classmethod
    def in_memory(cls, cwd: str | os.PathLike[str]) -> SessionManager:
        """A session that is never written (`--no-session`)."""
        header = SessionHeader(id=uuid7(), cwd=os.path.abspath(cwd))
        return cls(header, SessionTree(), None, written=False)

    # --- state ----------------------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return self._header.id

    @property
    def header(self) -> SessionHeader:
        return self._header

    @property
    def cwd(self) -> str:
        return self._header.cwd

    @property
    def path(self) -> Path | None:
        """The transcript file (it may not exist yet, see `is_written`); None for in-memory sessions."""
        return self._path

    @property
    def is_written(self) -> bool:
        """Whether the file exists (the persistence guard has released it)."""
        return self._written

    @property
    def entries(self) -> Sequence[AnyEntry]:
        """Every entry in file order (all branches)."""
        return self._tree.entries

    @property
    def leaf_id(self) -> str | None:
        return self._leaf_id

    @property
    def name(self) -> str | None:
        return self._tree.name

    @property
    def labels(self) -> Mapping[str, str]:
        return self._tree.labels

    def get_entry(self, entry_id: str) -> AnyEntry | None:
        return self._tree.get(entry_id)

    def children(self, entry_id: str | None) -> list[AnyEntry]:
        """Direct children in file order (`None`: the roots)."""
        return self._tree.children(entry_id)

    def path_to(self, entry_id: str | None) -> list[AnyEntry]:
        """Entries root → `entry_id`; `[]` for None."""
        if entry_id is not None:
            self._require(entry_id)
        return self._tree.path_to(entry_id)

    def path_ids(self, entry_id: str | None) -> list[str]:
        """The ids of `path_to(entry_id)`, no entry validated (`get_entry` validates one)."""
        if entry_id is not None:
            self._require(entry_id)
        return self._tree.ids_to(entry_id)

    def path_items(self, entry_id: str | None) -> list[AnyEntry | RawEntry]:
        """`path_to(entry_id)`, message entries loaded from disk left as data (`tree.is_raw`)."""
        if entry_id is not None:
            self._require(entry_id)
        return self._tree.items_to(entry_id)

    def branch_between(self, from_id: str | None, to_id: str | None) -> list[AnyEntry]:
        """The entries abandoned when the leaf moves from `from_id` to `to_id` (to summarise them)."""
        return self._tree.branch_between(from_id, to_id)

    def build_context(self) -> SessionContext:
        """What the model sees at the current leaf (lists of its own, free to change)."""
        fold = self._fold
        if fold is None or fold.leaf_id != self._leaf_id:
            fold = self._fold = ContextFold(self._tree.items_to(self._leaf_id))
        return fold.context()

    # --- appending ------------------------------------------------------------------------------

    def append_message(self, message: AgentMessage) -> MessageEntry:
        entry = MessageEntry(id=self._tree.new_id(), parent_id=self._leaf_id, message=message)
        self._append(entry)
        return entry

    def append_model_change(self, provider: str, model_id: str) -> ModelChangeEntry:
        entry = ModelChangeEntry(id=self._tree.new_id(), parent_id=self._leaf_id, provider=provider, model_id=model_id)
        self._append(entry)
        return entry

    def append_thinking_level_change(self, level: str) -> ThinkingLevelChangeEntry:
        entry = ThinkingLevelChangeEntry(id=self._tree.new_id(), parent_id=self._leaf_id, thinking_level=level)
        self._append(entry)
        return entry

    def append_permission_mode_change(self, mode: str) -> PermissionModeChangeEntry:
        entry = PermissionModeChangeEntry(id=self._tree.new_id(), parent_id=self._leaf_id, permission_mode=mode)
        self._append(entry)
        return entry

    def append_compaction(
        self, summary: str, first_kept_entry_id: str, tokens_before: int, details: JsonValue = None
    ) -> CompactionEntry:
        self._require(first_kept_entry_id)
        entry = CompactionEntry(
            id=self._tree.new_id(),
            parent_id=self._leaf_id,
            summary=summary,
            first_kept_entry_id=first_kept_entry_id,
            tokens_before=tokens_before,
            details=details,
        )
        self._append(entry)
        return entry

    def append_branch_summary(self, from_id: str, summary: str) -> BranchSummaryEntry:
        entry = BranchSummaryEntry(id=self._tree.new_id(), parent_id=self._leaf_id, from_id=from_id, summary=summary)
        self._append(entry)
        return entry

    def append_label(self, target_id: str, label: str | None) -> LabelEntry:
        """Set a label on an entry; `None` or "" clears it."""
        self._require(target_id)
        entry = LabelEntry(id=self._tree.new_id(), parent_id=self._leaf_id, target_id=target_id, label=label or None)
        self._append(entry)
        return entry

    def append_session_info(self, name: str | None) -> SessionInfoEntry:
        """Name (or, with None, unname) the session."""
        clean = name.strip() if name else None
        entry = SessionInfoEntry(id=self._tree.new_id(), parent_id=self._leaf_id, name=clean or None)
        self._append(entry)
        return entry

    def append_custom(self, custom_type: str, data: JsonValue = None) -> CustomEntry:
        entry = CustomEntry(id=self._tree.new_id(), parent_id=self._leaf_id, custom_type=custom_type, data=data)
        self._append(entry)
        return entry

    def flush_now(self) -> None:
        """Write the file now, even before the first assistant message (no-op in memory)."""
        if self._writer is not None and not self._written:
            self._write_all()

    def _append(self, entry: AnyEntry) -> None:
        """Write the entry, then add it to the tree: one that could not be written is in neither, so what
        is in memory never runs ahead of the file (`SessionError` says why)."""
        if self._writer is not None:
            if self._written:
                self._writer.append(encode_line(entry))
            elif isinstance(entry, MessageEntry):
                self._write_all(entry)
        self._tree.add(entry)
        self._leaf_id = entry.id
        if self._fold is not None and self._fold.leaf_id == entry.parent_id and not self._fold.extend(entry):
            self._fold = None

    def _write_all(self, *more: AnyEntry) -> None:
        assert self._writer is not None
        entries = (*self._tree.entries, *more)
        self._writer.create([encode_line(self._header), *(encode_line(e) for e in entries)])
        self._written = True

    def _require(self, entry_id: str) -> AnyEntry:
        entry = self._tree.get(entry_id)
        if entry is None:
            raise SessionError(f"no entry {entry_id!r} in session {self.session_id}")
        return entry

    # --- moving and copying -----------------------------------------------------------------------

    def branch(self, entry_id: str) -> None:
        """Move the leaf to `entry_id`; the next append starts a sibling branch there."""
        self._require(entry_id)
        self._leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Move the leaf before the first entry; the next append starts a new root."""
        self._leaf_id = None

    def navigate(self, target_id: str, summary: str | None = None) -> NavigateResult:
        """Move to `target_id` as the tree view does.

        Selecting a user message moves the leaf to its parent and returns its text for the editor;
        any other entry becomes the leaf. With `summary`, a branch summary of the branch left behind
        (`fromId` = the old leaf) is appended at the new position.
        """
        target = self._require(target_id)
        old_leaf = self._leaf_id
        editor_text = user_text(target)
        self._leaf_id = target.parent_id if editor_text is not None else target.id
        entry = None
        if summary is not None:
            entry = self.append_branch_summary(old_leaf or "root", summary)
        return NavigateResult(editor_text, entry)

    def fork(
        self,
        entry_id: str,
        position: ForkPosition = "before",
        sessions_dir: str | os.PathLike[str] | None = None,
    ) -> ForkResult:
        """A new session holding root → `entry_id` ("at") or root → its parent ("before").

        The new session's header names this file as `parentSession`; this session is not touched.
        `sessions_dir` defaults to this session's directory; an in-memory session forks in memory.
        The fork obeys the persistence guard (written once it holds a message).
        """
        plan = plan_fork(self._tree, entry_id, position, self.build_context())
        return ForkResult(self._spawn(plan.entries, sessions_dir), plan.selected_text)

    def clone(self, sessions_dir: str | os.PathLike[str] | None = None) -> SessionManager:
        """A new session holding the active branch (root → leaf)."""
        plan = plan_fork(self._tree, self._leaf_id, "at", self.build_context())
        return self._spawn(plan.entries, sessions_dir)

    def _spawn(self, entries: list[AnyEntry], sessions_dir: str | os.PathLike[str] | None) -> SessionManager:
        directory = Path(sessions_dir) if sessions_dir is not None else self._path and self._path.parent
        parent = os.fspath(self._path) if self._path is not None else None
        header = SessionHeader(id=uuid7(), cwd=self.cwd, parent_session=parent)
        path = session_file(directory, header.id) if directory else None
        fsync = self._writer.fsync if self._writer is not None else False
        child = SessionManager(header, SessionTree(entries), path, written=False, fsync=fsync)
        if any(isinstance(e, MessageEntry) for e in entries):
            child.flush_now()
        return child
