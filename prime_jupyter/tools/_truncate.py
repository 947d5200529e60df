"""Cutting tool output down to what a model can take: whole lines, a line budget and a byte budget.

`truncate_head` keeps the start (file reads: the model continues with an offset); `truncate_tail` keeps
the end (command output: errors and summaries come last). A line is text up to a `"\\n"`; a final
newline ends the last line rather than starting an empty one. Only whole lines are kept, except when
`truncate_tail` meets a last line that alone is over the byte budget: then it keeps the end of that line,
cut on a UTF-8 character boundary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import JsonValue

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "TruncationResult",
    "count_lines",
    "format_size",
    "split_lines",
    "truncate_head",
    "truncate_tail",
    "utf8_len",
]

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024

TruncatedBy = Literal["lines", "bytes"]


@dataclass(frozen=True, slots=True)
class TruncationResult:
    """What was kept of a text and why.

    `first_line_exceeds_limit` (head only): the very first line is over the byte budget, nothing is kept.
    `last_line_partial` (tail only): the content is the end of one over-long last line.
    """

    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    first_line_exceeds_limit: bool = False
    last_line_partial: bool = False

    def to_json(self) -> dict[str, JsonValue]:
        """The result without its content, camelCase, for a tool result's `details`."""
        return {
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "lastLinePartial": self.last_line_partial,
        }


def utf8_len(text: str) -> int:
    """Bytes `text` takes in UTF-8 (a lone surrogate counts as one replacement byte)."""
    return len(text.encode("utf-8", "replace"))


def split_lines(text: str) -> list[str]:
    """Lines of `text` split on `"\\n"` only; a trailing newline does not add an empty line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def count_lines(text: str) -> int:
    """`len(split_lines(text))` without building the list."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def format_size(size: int) -> str:
    """A byte count for people: `512B`, `50.0KB`, `3.2MB`."""
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f}KB"
    return f"{size / (1024 * 1024):.1f}MB"


def truncate_head(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the start of `text` within both budgets."""
    lines = split_lines(text)
    if _fits(text, lines, max_lines, max_bytes):
        return _whole(text, lines)
    kept, by = _take(lines, max_lines, max_bytes)
    return _cut(text, lines, kept, by, first_line_exceeds_limit=not kept)


def truncate_tail(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the end of `text` within both budgets (or the end of one over-long line)."""
    lines = split_lines(text)
    if _fits(text, lines, max_lines, max_bytes):
        return _whole(text, lines)
    kept, by = _take(lines[::-1], max_lines, max_bytes)
    if kept:
        return _cut(text, lines, kept[::-1], by)
    return _cut(text, lines, [_utf8_tail(lines[-1], max_bytes)], "bytes", last_line_partial=True)


def _fits(text: str, lines: list[str], max_lines: int, max_bytes: int) -> bool:
    # The final newline is not counted against the budget: it is the end of the last line, not content.
    joined_bytes = utf8_len(text) - (1 if text.endswith("\n") else 0)
    return len(lines) <= max_lines and joined_bytes <= max_bytes


def _take(lines: list[str], max_lines: int, max_bytes: int) -> tuple[list[str], TruncatedBy]:
    """Lines from the front of `lines` while both budgets hold, and which budget stopped it."""
    kept: list[str] = []
    used = 0
    for line in lines:
        if len(kept) >= max_lines:
            return kept, "lines"
        size = utf8_len(line) + (1 if kept else 0)
        if used + size > max_bytes:
            return kept, "bytes"
        kept.append(line)
        used += size
    return kept, "lines"


def _utf8_tail(line: str, max_bytes: int) -> str:
    """The last `max_bytes` bytes of `line`, starting on a character boundary."""
    data = line.encode("utf-8", "replace")[-max_bytes:]
    start = 0
    while start < len(data) and data[start] & 0xC0 == 0x80:  # skip continuation bytes of a cut character
        start += 1
    return data[start:].decode("utf-8", "replace")


def _whole(text: str, lines: list[str]) -> TruncationResult:
    size = utf8_len(text)
    return TruncationResult(text, False, None, len(lines), size, len(lines), size)


def _cut(
    text: str,
    lines: list[str],
    kept: list[str],
    by: TruncatedBy,
    *,
    first_line_exceeds_limit: bool = False,
    last_line_partial: bool = False,
) -> TruncationResult:
    content = "\n".join(kept)
    return TruncationResult(
        content=content,
        truncated=True,
        truncated_by=by,
        total_lines=len(lines),
        total_bytes=utf8_len(text),
        output_lines=len(kept),
        output_bytes=utf8_len(content),
        first_line_exceeds_limit=first_line_exceeds_limit,
        last_line_partial=last_line_partial,
    )
