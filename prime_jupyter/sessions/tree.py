"""The tree of a transcript: entries indexed by id and by parent, labels, the session name.

A transcript is append-only; moving the leaf back and appending makes a sibling branch in the same
file. `SessionTree` is the in-memory index over those entries; it knows nothing about files.

Links are kept as positions in file order (`id -> position`, `position -> parent's position`, the
latter built on the first walk), so walking a branch of 22,000 entries reads two compact lists
instead of chasing entry objects scattered over a few hundred megabytes of heap (that walk was
memory-bound: about a microsecond a step).

A loaded transcript keeps its message entries as the JSON they parsed to (`RawEntry`, see
`store.load_transcript`) until something asks for them. This module is the one place that tells such
data from an entry: `is_raw`, `id_of` and `parent_id_of` are the accessors the context fold uses on
the tree's items (`items_to`, and the loader's entries as they come); everything else gets entries.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from prime_jupyter.sessions.entries import AnyEntry, LabelEntry, RawEntry, SessionInfoEntry
from prime_jupyter.sessions.ids import new_entry_id
from prime_jupyter.sessions.store import entry_from_data

if TYPE_CHECKING:
    from typing_extensions import TypeIs

__all__ = ["SessionTree", "id_of", "is_raw", "parent_id_of"]

_NO_PARENT = -1
_META = (LabelEntry, SessionInfoEntry)


def is_raw(item: AnyEntry | RawEntry) -> TypeIs[RawEntry]:
    """Whether a loaded item is still its parsed line (a message entry), not an entry model."""
    return type(item) is dict  # exact type: an entry is never a dict, and a missed isinstance() is slow


def id_of(item: AnyEntry | RawEntry) -> str:
    """The id of a loaded item, whether still raw data or not."""
    return item["id"] if type(item) is dict else item.id  # type: ignore[union-attr]


def parent_id_of(item: AnyEntry | RawEntry) -> str | None:
    """The parent id of a loaded item, whether still raw data or not."""
    return item["parentId"] if type(item) is dict else item.parent_id  # type: ignore[union-attr]


class SessionTree:
    """Entries in file order, with lookups by id and by parent.

    A loaded transcript's message entries may still be `RawEntry` data: each becomes its entry the
    first time it is asked for (`entry_from_data`), and stays that way. `items_to` gives a path
    unconverted (what the context fold reads). The indexes by parent (children, parent positions) are built on
    first use: continuing a session needs neither.
    """

    def __init__(self, entries: Iterable[AnyEntry | RawEntry] = (), positions: dict[str, int] | None = None) -> None:
        """Index `entries`; `positions` (each entry's index by id, which the loader has) is taken over."""
        self._items: list[AnyEntry | RawEntry] = list(entries)
        self._position = (
            positions if positions is not None else {id_of(item): pos for pos, item in enumerate(self._items)}
        )
        self._parents: list[int] | None = None  # built on the first walk
        self._children: dict[str | None, list[int]] | None = None
        self._labels: dict[str, str] = {}
        self._name: str | None = None
        self._raw_left = any(type(item) is dict for item in self._items)  # `is_raw`, inlined
        for item in self._items:
            if type(item) in _META:  # exact types: a miss of isinstance() is slow; raw data is never one
                self._note(item)  # type: ignore[arg-type]

    def add(self, entry: AnyEntry) -> None:
        """Index one more entry (its id must be new)."""
        parent_id = entry.parent_id
        position = len(self._items)
        if self._parents is not None:
            self._parents.append(self._position.get(parent_id, _NO_PARENT) if parent_id is not None else _NO_PARENT)
        self._position[entry.id] = position
        self._items.append(entry)
        if self._children is not None:
            self._children.setdefault(parent_id, []).append(position)
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

    def _entry(self, pos: int) -> AnyEntry:
        item = self._items[pos]
        if is_raw(item):
            item = self._items[pos] = entry_from_data(item)
        return item

    @property
    def entries(self) -> Sequence[AnyEntry]:
        """Every entry in file order (raw data turned into entries, once)."""
        if self._raw_left:
            for pos in range(len(self._items)):
                self._entry(pos)
            self._raw_left = False
        return self._items  # type: ignore[return-value]

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
        return len(self._items)

    def last_id(self) -> str | None:
        """The id of the last entry in file order."""
        return id_of(self._items[-1]) if self._items else None

    def get(self, entry_id: str) -> AnyEntry | None:
        pos = self._position.get(entry_id)
        return self._entry(pos) if pos is not None else None

    def children(self, entry_id: str | None) -> list[AnyEntry]:
        """Direct children in file order; `None` gives the roots."""
        if self._children is None:
            self._children = {}
            for pos, item in enumerate(self._items):
                self._children.setdefault(parent_id_of(item), []).append(pos)
        return [self._entry(pos) for pos in self._children.get(entry_id, ())]

    def path_to(self, entry_id: str | None) -> list[AnyEntry]:
        """Entries from the root down to `entry_id` inclusive; `[]` for `None` or an unknown id.

        An entry whose parent is missing (a damaged file) starts the path; a parent cycle is cut.
        """
        return [self._entry(pos) for pos in self._chain(entry_id)]

    def ids_to(self, entry_id: str | None) -> list[str]:
        """The ids of `path_to`, no entry validated (a front end validates only the tail it shows)."""
        items = self._items
        return [id_of(items[pos]) for pos in self._chain(entry_id)]

    def items_to(self, entry_id: str | None) -> list[AnyEntry | RawEntry]:
        """`path_to`, message entries loaded as data left as they are (for the context fold)."""
        items = self._items
        return [items[pos] for pos in self._chain(entry_id)]

    def _chain(self, entry_id: str | None) -> list[int]:
        """Positions from the root down to `entry_id`."""
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
        chain.reverse()
        return chain

    def _parent_of(self, pos: int) -> int:
        if self._parents is None:
            find = self._position.get
            self._parents = [
                _NO_PARENT if (p := parent_id_of(item)) is None else find(p, _NO_PARENT) for item in self._items
            ]
        parent = self._parents[pos]
        if parent == _NO_PARENT:  # a root, or a parent that was missing when this entry was indexed
            parent_id = parent_id_of(self._items[pos])
            if parent_id is not None:
                return self._position.get(parent_id, _NO_PARENT)
        return parent

    def branch_between(self, from_id: str | None, to_id: str | None) -> list[AnyEntry]:
        """Entries on the path to `from_id` that are not on the path to `to_id` (root-first).

        This is the branch abandoned when the leaf moves from `from_id` to `to_id`.
        """
        keep = set(self._chain(to_id))
        return [self._entry(pos) for pos in self._chain(from_id) if pos not in keep]

    def new_id(self) -> str:
        """A fresh entry id, unique within this tree."""
        return new_entry_id(self._position)
