"""What files and notebooks held before the agent changed them: content-addressed blobs a rewind reads back.

A blob is stored once under the SHA-256 of its bytes, in the `snapshots` folder of the sessions directory
(beside the transcripts, which the listing never mistakes it for: it reads only the folder's own `.jsonl`
files), so a fork or a clone that copies a transcript's change entries finds the same blobs. A session
kept in memory keeps its blobs in memory. A blob is written whole (`atomic_write`) before the entry that
names it, so an entry never names a blob that is not there.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from prime_jupyter._atomic import atomic_write

__all__ = ["SnapshotStore", "digest"]

_DIGEST = re.compile(r"[0-9a-f]{64}")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class SnapshotStore:
    def __init__(self, folder: Path | None) -> None:
        """Blobs in `folder` (created on the first write); None: in memory."""
        self.folder = folder
        self._memory: dict[str, bytes] = {}

    def put(self, data: bytes) -> str:
        """Keep `data`; its digest names it. Raises `OSError` when it cannot be written."""
        name = digest(data)
        if self.folder is None:
            self._memory[name] = data
        elif not (self.folder / name).exists():
            atomic_write(self.folder / name, data)
        return name

    def get(self, name: str) -> bytes | None:
        """The blob named `name`; None when there is none (removed by hand, or a name that is not one)."""
        if not _DIGEST.fullmatch(name):
            return None
        if self.folder is None:
            return self._memory.get(name)
        try:
            return (self.folder / name).read_bytes()
        except OSError:
            return None
