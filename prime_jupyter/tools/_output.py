"""Collecting a command's output with bounded memory, spilling all of it to a temp file once it is large.

While the output fits the tail budget it is kept whole in memory. As soon as it does not, everything so
far and everything after goes to `tempfile.mkstemp(prefix="prime-bash-", suffix=".log")`, and memory
keeps only a rolling end of the text, enough to show the last lines. The model sees the tail and the
file's path, and can read or grep the rest.
"""

from __future__ import annotations

import codecs
import contextlib
import dataclasses
import os
import tempfile
from typing import BinaryIO

from prime_jupyter.tools._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    truncate_tail,
    utf8_len,
)

__all__ = ["OutputBuffer"]


class OutputBuffer:
    """Output of one command: `append` raw bytes, `snapshot` the truncated tail, `finish` at the end."""

    def __init__(
        self, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES, prefix: str = "prime-bash-"
    ) -> None:
        self._max_lines = max_lines
        self._max_bytes = max_bytes
        self._prefix = prefix
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._tail = ""  # all decoded text while small, then only its end (at least 2 x max_bytes chars)
        self._raw: bytearray | None = bytearray()  # the raw bytes until they are spilled to the file
        self._file: BinaryIO | None = None
        self.full_output_path: str | None = None
        self.total_bytes = 0
        self._newlines = 0
        self._ends_with_newline = True

    @property
    def total_lines(self) -> int:
        if self.total_bytes == 0:
            return 0
        return self._newlines + (0 if self._ends_with_newline else 1)

    def append(self, data: bytes) -> None:
        self._keep_raw(data)
        self._add_text(self._decoder.decode(data))

    def finish(self) -> None:
        """Flush a dangling partial character, close the file, and drop it if nothing was cut after all."""
        self._add_text(self._decoder.decode(b"", final=True))
        if self._file is not None:
            self._file.close()
            self._file = None
        if self.full_output_path is not None and not self.snapshot().truncated:
            with contextlib.suppress(OSError):
                os.unlink(self.full_output_path)
            self.full_output_path = None

    def snapshot(self) -> TruncationResult:
        """The last lines within budget; totals count all the output, not only what memory kept."""
        cut = truncate_tail(self._tail, self._max_lines, self._max_bytes)
        return dataclasses.replace(cut, total_lines=self.total_lines, total_bytes=self.total_bytes)

    def _add_text(self, piece: str) -> None:
        if not piece:
            return
        self._tail += piece
        self.total_bytes += utf8_len(piece)
        self._newlines += piece.count("\n")
        self._ends_with_newline = piece.endswith("\n")
        if len(self._tail) > 4 * self._max_bytes:
            self._tail = self._tail[-2 * self._max_bytes :]
        if self._raw is not None and (self.total_bytes > self._max_bytes or self.total_lines > self._max_lines):
            self._spill()

    def _keep_raw(self, data: bytes) -> None:
        if self._file is not None:
            self._file.write(data)
        elif self._raw is not None:
            self._raw += data

    def _spill(self) -> None:
        fd, self.full_output_path = tempfile.mkstemp(prefix=self._prefix, suffix=".log")
        self._file = os.fdopen(fd, "wb")
        self._file.write(bytes(self._raw or b""))
        self._raw = None
