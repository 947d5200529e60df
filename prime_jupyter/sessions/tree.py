"""The tree of a transcript: entries indexed by id and by parent, labels, the session name.

A transcript is append-only; moving the leaf back and appending makes a sibling branch in the same
file. `SessionTree` is the in-memory index over those entries; it knows nothing about files.

Links are kept as positions in file order (`id -> position`, `position -> parent's position`, the
latter built on the first walk), so walking a branch of 22,000 entries reads two compact lists
instead of chasing entry objects scattered over a few hundred megabytes of heap (that walk was
memory-bound: about a microsecond a step).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from prime_jupyter.sessions.entries import AnyEntry, LabelEntry, SessionInfoEntry
from prime_jupyter.sessions.ids import new_entry_id

__all__ = ["SessionTree"]

_NO_PARENT = -1
_META = (LabelEntry, SessionInfoEntry)


class SessionTree:
    """Entries in file order, with lookups by id and by parent.

    The indexes by parent (children, parent positions) are built on first use: continuing a session
    needs neither.
    """

    def __init__(self, entries: Iterable[AnyEntry] = (), positions: dict[str, int] | None = None) -> None:
        """Index `entries`; `positions` (each entry's index by id, which the loader has) is taken over."""
        self._entries: list[AnyEntry] = list(entries)
        self._position = positions if positions is not None else {e.id: pos for pos, e in enumerate(self._entries)}
        self._parents: list[int] | None = None  # built on the first walk
        self._children: dict[str | None, list[AnyEntry]] | None = None
        self._labels: dict[str, str] = {}
        self._name: str | None = None
        for entry in [e for e in self._entries if type(e) in _META]:  # exact types: a miss of isinstance() is slow
            self._note(entry)

    def add(self, entry: AnyEntry) -> None:
        """Index one more entry (its id must be new)."""
        parent_id = entry.parent_id
        if self._parents is not None:
            self._parents.append(self._position.get(parent_id, _NO_PARENT) if parent_id is not None else _NO_PARENT)
        self._position[entry.id] = len(self._entries)
        self._entries.append(entry)
        if self._children is not None:
            self._children.setdefault(parent_id, []).append(entry)
        if isinstance(entry, _META):
            self._note(entry)

    def _note(self, entry: AnyEntry) -> None:
        if isinstance(entry, LabelEntry):
            if entry.label:
                self._labels[entry.target_id] = entry.label
            else:
                self._labels.pop(entry.target_id, None)
        elif isinstance(entry, SessionInfoEntry):
            self._name = entry.name.strip() if entry.name and entry.name.strip() else None

    @property
    def entries(self) -> Sequence[AnyEntry]:
        return self._entries

    @property
    def labels(self) -> Mapping[str, str]:
        """Current label of each labelled entry id."""
        return self._labels

    @property
    def name(self) -> str | None:
        """The name set by the latest `session_info` entry."""
        return self._name

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._position

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, entry_id: str) -> AnyEntry | None:
        pos = self._position.get(entry_id)
        return self._entries[pos] if pos is not None else None

    def children(self, entry_id: str | None) -> list[AnyEntry]:
        """Direct children in file order; `None` gives the roots."""
        if self._children is None:
            self._children = {}
            for entry in self._entries:
                self._children.setdefault(entry.parent_id, []).append(entry)
        return list(self._children.get(entry_id, ()))

    def path_to(self, entry_id: str | None) -> list[AnyEntry]:
        """Entries from the root down to `entry_id` inclusive; `[]` for `None` or an unknown id.

        An entry whose parent is missing (a damaged file) starts the path; a parent cycle is cut.
        """
        pos = self._position.get(entry_id, _NO_PARENT) if entry_id is not None else _NO_PARENT
        chain: list[int] = []
        seen: set[int] | None = None  # only a parent later in the file can close a cycle: watched from there on
        while pos != _NO_PARENT:
            if seen is not None:
                if pos in seen:
                    break
                seen.add(pos)
            chain.append(pos)
            parent = self._parent_of(pos)
            if parent >= pos and seen is None:
                seen = set(chain)
            pos = parent
        entries = self._entries
        return [entries[pos] for pos in reversed(chain)]

    def _parent_of(self, pos: int) -> int:
        if self._parents is None:
            find = self._position.get
            self._parents = [_NO_PARENT if (p := e.parent_id) is None else find(p, _NO_PARENT) for e in self._entries]
        parent = self._parents[pos]
        if parent == _NO_PARENT:  # a root, or a parent that was missing when this entry was indexed
            parent_id = self._entries[pos].parent_id
            if parent_id is not None:
                return self._position.get(parent_id, _NO_PARENT)
        return parent

    def branch_between(self, from_id: str | None, to_id: str | None) -> list[AnyEntry]:
        """Entries on the path to `from_id` that are not on the path to `to_id` (root-first).

        This is the branch abandoned when the leaf moves from `from_id` to `to_id`.
        """
        keep = {entry.id for entry in self.path_to(to_id)}
        return [entry for entry in self.path_to(from_id) if entry.id not in keep]

    def new_id(self) -> str:
        """A fresh entry id, unique within this tree."""
        return new_entry_id(self._position)
