"""Reading a window of lines out of a file of any size with bounded memory.

A 5 GB log or a minified bundle with one 80 MB line must not be loaded whole to show its first 2,000
lines: lines are read with a cap on their length, the window is kept, and the rest of the file is only
counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

__all__ = ["Window", "scan_window"]

_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Window:
    """Lines `start..` of a file and the file's total line count.

    An over-long line appears cut to the scan's cap (so it is detectably over the byte budget);
    `first_line_bytes` is the true length of the window's first line, for messages about it.
    """

    lines: list[str]
    total_lines: int
    first_line_bytes: int


def scan_window(handle: BinaryIO, start: int, max_lines: int, max_bytes: int) -> Window:
    """Lines from 1-based `start`: at most `max_lines`, stopping after the line that passes `max_bytes`."""
    total = 0
    kept: list[bytes] = []
    used = 0
    first_len = 0
    for head, size in _capped_lines(handle, max_bytes + 1):
        total += 1
        if total < start:
            continue
        if not kept:
            first_len = size
        kept.append(head)
        used += len(head) + 1
        if len(kept) >= max_lines or used > max_bytes:
            total += _count_rest(handle)
            break
    return Window([line.decode("utf-8", "replace") for line in kept], total, first_len)


def _capped_lines(handle: BinaryIO, cap: int) -> Iterator[tuple[bytes, int]]:
    """Each line without its newline, cut to `cap` bytes, with its full length in bytes.

    The handle is positioned at the start of the next line whenever a line is yielded.
    """
    while head := handle.readline(cap):
        size, piece = len(head), head
        while len(piece) == cap and not piece.endswith(b"\n"):  # an over-long line: skip the rest
            piece = handle.readline(cap)
            size += len(piece)
        if piece.endswith(b"\n"):
            size -= 1
        yield (head[:-1] if head.endswith(b"\n") else head), size


def _count_rest(handle: BinaryIO) -> int:
    """Lines from the handle's position (at a line start) to the end of the file."""
    count, last = 0, b"\n"
    while chunk := handle.read(_CHUNK):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    return count + (0 if last == b"\n" else 1)
