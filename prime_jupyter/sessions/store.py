"""Reading and appending transcript files.

Durability: every entry is one `os.write` of `json + "\\n"` on a descriptor opened with `O_APPEND`, so
once `append` returns the line is in the operating system's page cache and survives a crash or kill of
this process. Surviving a power loss needs `fsync=True`, which adds an `os.fsync` per write (a few
milliseconds on most disks); it is off by default.

Loading splits on `b"\\n"` only: U+2028 and U+2029 are legal unescaped inside JSON strings, and
`str.splitlines()` would cut a message in two (design.md D5, style rule 11). A damaged line never makes
a transcript unloadable: a truncated last line (a crash mid-write) and corrupt lines in the middle are
skipped with a warning, entries of unknown types are kept as `UnknownEntry`. The next append then starts
on a fresh line, which repairs the file.

Message entries, nearly every line of a long session, are not validated while loading: each stays the
JSON it parsed to (a `RawEntry`, its envelope checked) until someone asks for the entry, and the
context reads its message as data (`ai.history`). Validating 22,000 of them into models was most of
the time it took to resume such a session; now only what a front end shows or the runtime reads is.
A message found malformed then is kept as an `UnknownEntry`, as it would have been when loading.

Loading a long transcript builds hundreds of thousands of long-lived objects, which the cyclic garbage
collector would rescan while they pile up; pausing it is the host's call (its "bulk load" moment), not
this module's.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

import pydantic_core
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from prime_jupyter.ai.json_text import model_json
from prime_jupyter.errors import SessionError, SessionNotFoundError, TranscriptWriteError
from prime_jupyter.sessions.entries import (
    KNOWN_ENTRY_TYPES,
    AnyEntry,
    RawEntry,
    SessionEntry,
    SessionHeader,
    UnknownEntry,
)

__all__ = [
    "LoadedTranscript",
    "OnEntry",
    "TranscriptWriter",
    "encode_line",
    "entry_from_data",
    "load_transcript",
    "session_file",
]

log = logging.getLogger(__name__)


# String values are not interned while parsing or validating (keys are): looking each one up in
# pydantic-core's cache cost about a fifth of validating a transcript, whose strings are nearly all
# unique, and saved no time when parsing one.
@functools.cache
def _entry_adapter() -> TypeAdapter[SessionEntry]:
    """Built on first use (a few ms): a launch that never reads a transcript does not pay for it."""
    return TypeAdapter(SessionEntry, config=ConfigDict(cache_strings="keys"))


def session_file(sessions_dir: Path, session_id: str) -> Path:
    """Where the transcript of `session_id` lives: `<sessions_dir>/<session_id>.jsonl`."""
    return sessions_dir / f"{session_id}.jsonl"


def encode_line(record: BaseModel) -> bytes:
    """One JSONL line (camelCase keys, nulls left out except where the format needs them).

    A lone surrogate in a string is replaced (`ai.json_text`): the line must load again.
    """
    return model_json(record).encode() + b"\n"


@dataclass
class LoadedTranscript:
    """A parsed transcript: header, entries in file order, and what was skipped or kept opaque."""

    header: SessionHeader
    entries: list[AnyEntry | RawEntry]
    warnings: list[str] = field(default_factory=list)
    positions: dict[str, int] = field(default_factory=dict)
    """The index of each entry in `entries`, by id."""


OnEntry = Callable[[AnyEntry | RawEntry, Sequence[AnyEntry | RawEntry]], None]
"""Called with each kept entry and every kept entry so far (it last)."""

_LAZY_ROLES = frozenset({"user", "assistant", "toolResult"})


def load_transcript(path: Path, on_entry: OnEntry | None = None) -> LoadedTranscript:
    """Parse a transcript file. Raises `SessionNotFoundError` or `SessionError` (no valid header).

    `on_entry` sees each kept entry as soon as it is parsed, while it is still in the CPU's caches
    (`SessionManager.open` folds the context that way, in the same pass). The file is read line by
    line, so its bytes are never held twice.
    """
    try:
        with path.open("rb") as file:
            header = _parse_header(file.readline(), path)
            loaded = LoadedTranscript(header, [])
            _parse_entries(file, loaded, on_entry)
    except FileNotFoundError:
        raise SessionNotFoundError(f"no session file at {path}") from None
    except OSError as exc:
        raise SessionError(f"cannot read session file {path}: {exc.strerror}") from exc
    for problem in loaded.warnings:
        log.warning("%s: %s", path, problem)
    return loaded


def _parse_header(line: bytes, path: Path) -> SessionHeader:
    try:
        return SessionHeader.model_validate_json(line)
    except ValidationError:
        raise SessionError(f"{path} is not a session transcript: line 1 is not a session header") from None


def _parse_entries(lines: Iterable[bytes], loaded: LoadedTranscript, on_entry: OnEntry | None) -> None:
    """Parse every entry line; the hot loop of a resume.

    A message entry (nearly every line) is kept as the JSON it parsed to, a `RawEntry`: its envelope is
    checked here, its message only when something asks for the entry (`entry_from_data`). Every other
    line is validated now. A binary file iterates lines split on `b"\\n"` only, each ending with it but
    a last line cut short.
    """
    parse = pydantic_core.from_json
    validate = _entry_adapter().validator.validate_python
    entries, warnings, positions = loaded.entries, loaded.warnings, loaded.positions
    unknown_types: Counter[str] = Counter()
    for number, line in enumerate(lines, start=2):
        try:
            raw = parse(line, cache_strings="keys")
        except ValueError:
            raw = _parse_slowly(line)
        if raw is _NOT_JSON:
            if line.strip():
                warnings.append(
                    "truncated last line skipped (not valid JSON)"
                    if not line.endswith(b"\n")
                    else f"line {number}: corrupt line skipped (not valid JSON)"
                )
            continue
        entry: AnyEntry | RawEntry
        opaque = False
        if _is_raw_message_entry(raw):
            entry, key = raw, raw["id"]
        else:
            known: AnyEntry | None
            try:
                known = validate(raw)
            except ValidationError as exc:
                known, opaque = _salvage(raw, number, exc, warnings), True
                if known is None:
                    continue
            entry, key = known, known.id
        if key in positions:
            warnings.append(f"line {number}: duplicate entry id {key!r} skipped")
            continue
        if opaque:
            unknown_types[entry.type] += 1  # type: ignore[union-attr]
        positions[key] = len(entries)
        entries.append(entry)
        if on_entry is not None:
            on_entry(entry, entries)
    for kind, count in unknown_types.items():
        warnings.append(f"{count} entr{'y' if count == 1 else 'ies'} of unknown type {kind!r} kept")


_NOT_JSON = object()


def _parse_slowly(line: bytes) -> object:
    """A line pydantic-core's parser refuses, parsed by Python's, which also takes the escape of half a
    character (`"\\ud83d"`: JavaScript's `JSON.stringify` writes one for a lone surrogate); else `_NOT_JSON`."""
    try:
        return json.loads(line)
    except ValueError:
        return _NOT_JSON


def _is_raw_message_entry(raw: object) -> TypeGuard[RawEntry]:
    """Whether `raw` has a message entry's envelope around a message of a role providers know."""
    if type(raw) is not dict or raw.get("type") != "message" or type(raw.get("id")) is not str:
        return False
    parent = raw.get("parentId", 0)  # the key is required, null for the root
    message = raw.get("message")
    return (
        (parent is None or type(parent) is str)
        and type(raw.get("timestamp", "")) is str
        and type(message) is dict
        and message.get("role") in _LAZY_ROLES
    )


def entry_from_data(raw: RawEntry) -> AnyEntry:
    """The entry a `RawEntry` holds; a message that does not validate keeps the line as an `UnknownEntry`."""
    try:
        return _entry_adapter().validate_python(raw)
    except ValidationError as exc:
        warnings: list[str] = []
        entry = _salvage(raw, None, exc, warnings)
        for problem in warnings:
            log.warning("entry %s: %s", raw.get("id"), problem)
        assert entry is not None  # its envelope was checked when it was loaded
        return entry


def _salvage(raw: object, number: int | None, error: ValidationError, warnings: list[str]) -> AnyEntry | None:
    """Keep a line the known types reject as an `UnknownEntry` if it is an entry at all."""
    where_line = f"line {number}: " if number is not None else ""
    if not (isinstance(raw, dict) and isinstance(raw.get("id"), str) and isinstance(raw.get("type"), str)):
        warnings.append(f"{where_line}not an entry (no id or type), skipped")
        return None
    raw = {**raw}
    raw.setdefault("parentId", None)
    try:
        entry = UnknownEntry.model_validate(raw)
    except ValidationError:
        warnings.append(f"{where_line}malformed entry skipped")
        return None
    if raw["type"] in KNOWN_ENTRY_TYPES:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"][1:])
        warnings.append(f"{where_line}invalid {raw['type']!r} entry kept opaque ({where}: {first['msg']})")
    return entry


class TranscriptWriter:
    """Writes one transcript file: `create` once, then `append` one entry at a time.

    A write that fails (a full disk, a folder made read-only) raises `TranscriptWriteError` naming the file and
    the reason, and leaves nothing half-made: a file that could not be created whole is removed again,
    so a later `create` can succeed; a line cut short is followed by a fresh one on the next append.
    """

    def __init__(self, path: Path, *, fsync: bool = False) -> None:
        self.path = path
        self.fsync = fsync

    def create(self, lines: Sequence[bytes]) -> None:
        """Create the file with `lines` (header first) in one write; fails if it already exists."""
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, flags, 0o644)
        except FileExistsError:
            raise SessionError(f"session file {self.path} already exists") from None
        except OSError as exc:
            raise self._unwritable(exc) from exc
        try:
            self._write(fd, b"".join(lines))
        except OSError as exc:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            raise self._unwritable(exc) from exc
        os.close(fd)
        if self.fsync:
            _fsync_dir(self.path.parent)

    def append(self, line: bytes) -> None:
        """Append one line; if the file does not end with a newline (a torn write), start a fresh one."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
        except FileNotFoundError:
            raise SessionError(f"session file {self.path} was removed while the session was open") from None
        except OSError as exc:
            raise self._unwritable(exc) from exc
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line
            self._write(fd, line)
        except OSError as exc:
            raise self._unwritable(exc) from exc
        finally:
            os.close(fd)

    def _write(self, fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if self.fsync:
            os.fsync(fd)

    def _unwritable(self, error: OSError) -> TranscriptWriteError:
        return TranscriptWriteError(f"cannot write the session file {self.path}: {error.strerror or error}")


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
