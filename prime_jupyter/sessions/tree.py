"""The tree of a transcript: entries indexed by id and by parent, labels, the session name.

A transcript is append-only; moving the leaf back and appending makes a sibling branch in the same
file. `SessionTree` is the in-memory index over those entries; it knows nothing about files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from prime_jupyter.sessions.entries import AnyEntry, LabelEntry, SessionInfoEntry
from prime_jupyter.sessions.ids import new_entry_id

__all__ = ["SessionTree"]


class SessionTree:
    """Entries in file order, with lookups by id and by parent."""

    def __init__(self, entries: Iterable[AnyEntry] = ()) -> None:
        self._entries: list[AnyEntry] = []
        self._by_id: dict[str, AnyEntry] = {}
        self._children: dict[str | None, list[AnyEntry]] = {}
        self._labels: dict[str, str] = {}
        self._name: str | None = None
        for entry in entries:
            self.add(entry)

    def add(self, entry: AnyEntry) -> None:
        """Index one more entry (its id must be new)."""
        self._entries.append(entry)
        self._by_id[entry.id] = entry
        self._children.setdefault(entry.parent_id, []).append(entry)
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
        return entry_id in self._by_id

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, entry_id: str) -> AnyEntry | None:
        return self._by_id.get(entry_id)

    def children(self, entry_id: str | None) -> list[AnyEntry]:
        """Direct children in file order; `None` gives the roots."""
        return list(self._children.get(entry_id, ()))

    def path_to(self, entry_id: str | None) -> list[AnyEntry]:
        """Entries from the root down to `entry_id` inclusive; `[]` for `None` or an unknown id.

        An entry whose parent is missing (a damaged file) starts the path; a parent cycle is cut.
        """
        path: list[AnyEntry] = []
        seen: set[str] = set()
        current = self._by_id.get(entry_id) if entry_id is not None else None
        while current is not None and current.id not in seen:
            seen.add(current.id)
            path.append(current)
            current = self._by_id.get(current.parent_id) if current.parent_id is not None else None
        path.reverse()
        return path

    def branch_between(self, from_id: str | None, to_id: str | None) -> list[AnyEntry]:
        """Entries on the path to `from_id` that are not on the path to `to_id` (root-first).

        This is the branch abandoned when the leaf moves from `from_id` to `to_id`.
        """
        keep = {entry.id for entry in self.path_to(to_id)}
        return [entry for entry in self.path_to(from_id) if entry.id not in keep]

    def new_id(self) -> str:
        """A fresh entry id, unique within this tree."""
        return new_entry_id(self._by_id)
