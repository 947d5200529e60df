"""Replacing a file's contents all at once, so a reader (or a crash) never sees half a write.

The data goes to a temporary file in the same directory, is flushed to disk, and is renamed over the
target. An existing file keeps its permission bits; a symlink keeps pointing where it did (the file it
points to is replaced, not the link). When the directory refuses new files but the file itself is
writable, the file is overwritten in place instead: not atomic, but what the user asked for.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

__all__ = ["atomic_write"]


def atomic_write(path: Path, data: bytes) -> bool:
    """Write `data` to `path`, creating parent directories; return whether the file is new.

    Raises `OSError` (the caller turns it into a message for the model).
    """
    target = Path(os.path.realpath(path))
    mode = _existing_mode(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        _replace(target, data, mode)
    except PermissionError:
        if mode is None or not os.access(target, os.W_OK):
            raise
        _overwrite(target, data)
    return mode is None


def _existing_mode(target: Path) -> int | None:
    try:
        info = target.stat()
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "Is a directory", str(target))
    return stat.S_IMODE(info.st_mode)


def _replace(target: Path, data: bytes, mode: int | None) -> None:
    temp = target.with_name(f".{target.name[:200]}.{secrets.token_hex(4)}.tmp")
    # 0o666 lets the umask decide a new file's mode, as any editor would.
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _overwrite(target: Path, data: bytes) -> None:
    with open(target, "r+b") as handle:
        handle.write(data)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())
