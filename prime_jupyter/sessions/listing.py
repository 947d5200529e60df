"""Listing, finding, renaming and deleting the transcripts of a sessions directory.

Listing reads each file once but parses only what it shows: files under 1 MiB are parsed line by line
(plain `json.loads`, no model validation); bigger files are scanned: entries are counted by their line
prefix (`{"type":"message"` — every writer puts `type` first) and only the lines needed for the first
message, the searchable text (at most 64 KiB) and the latest name are parsed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pydantic import JsonValue

from prime_jupyter.ai.json_text import well_formed
from prime_jupyter.errors import SessionError, SessionNotFoundError
from prime_jupyter.sessions.manager import SessionManager

__all__ = [
    "SessionInfo",
    "delete_session",
    "find_listed_session",
    "find_session",
    "find_session_path",
    "list_sessions",
    "most_recent",
    "most_recent_path",
    "read_session_info",
    "recorded_cwd",
    "rename_session",
]

FULL_PARSE_LIMIT = 1 << 20
SEARCH_TEXT_LIMIT = 64 * 1024
_MESSAGE_PREFIX = b'{"type":"message"'
_INFO_PREFIX = b'{"type":"session_info"'


@dataclass(frozen=True)
class SessionInfo:
    """One saved session as a list shows it."""

    path: Path
    id: str
    cwd: str
    name: str | None
    parent_session: str | None
    created: datetime
    modified: datetime
    message_count: int
    first_message: str
    all_messages_text: str
    """User and assistant text joined by spaces, cut at 64 KiB: for searching."""


@dataclass
class _Scan:
    name: str | None = None
    message_count: int = 0
    first_message: str = ""
    text_size: int = 0
    texts: list[str] = field(default_factory=list)

    def add_message(self, message: dict[str, JsonValue]) -> None:
        role = message.get("role")
        if role not in ("user", "assistant"):
            return
        text = _text_of(message.get("content"))
        if not text:
            return
        if role == "user" and not self.first_message:
            self.first_message = text
        if self.text_size < SEARCH_TEXT_LIMIT:
            self.texts.append(text)
            self.text_size += len(text) + 1

    @property
    def full(self) -> bool:
        return bool(self.first_message) and self.text_size >= SEARCH_TEXT_LIMIT


def _text_of(content: JsonValue) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return " ".join(t for t in texts if isinstance(t, str))


def _clean_name(name: JsonValue) -> str | None:
    return name.strip() or None if isinstance(name, str) else None


def _parse(line: bytes) -> dict[str, JsonValue] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _lines(data: bytes) -> Iterator[bytes]:
    start = data.find(b"\n") + 1 if b"\n" in data else len(data)
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        yield data[start:end]
        start = end + 1


def _scan_small(data: bytes) -> _Scan:
    scan = _Scan()
    for line in _lines(data):
        entry = _parse(line)
        if entry is None:
            continue
        message = entry.get("message")
        if entry.get("type") == "session_info":
            scan.name = _clean_name(entry.get("name"))
        elif entry.get("type") == "message" and isinstance(message, dict):
            scan.message_count += 1
            scan.add_message(message)
    return scan


def _scan_large(data: bytes) -> _Scan:
    scan = _Scan(message_count=data.count(b"\n" + _MESSAGE_PREFIX))
    for line in _lines(data):
        if scan.full:
            break
        if line.startswith(_MESSAGE_PREFIX):
            entry = _parse(line)
            message = entry.get("message") if entry else None
            if isinstance(message, dict):
                scan.add_message(message)
    last_info = data.rfind(b"\n" + _INFO_PREFIX)
    if last_info >= 0:
        end = data.find(b"\n", last_info + 1)
        info = _parse(data[last_info + 1 : end if end >= 0 else len(data)])
        scan.name = _clean_name(info.get("name") if info else None)
    return scan


def _parse_time(value: JsonValue, fallback: float) -> datetime:
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            pass
    return datetime.fromtimestamp(fallback, UTC)


def read_session_info(path: str | os.PathLike[str]) -> SessionInfo | None:
    """Summarise one transcript; None if it is unreadable or not a transcript."""
    file = Path(path)
    try:
        data = file.read_bytes()
        mtime = file.stat().st_mtime
    except OSError:
        return None
    header = _parse(data.split(b"\n", 1)[0])
    if header is None or header.get("type") != "session" or not isinstance(header.get("id"), str):
        return None
    scan = _scan_small(data) if len(data) < FULL_PARSE_LIMIT else _scan_large(data)
    cwd, parent = header.get("cwd"), header.get("parentSession")
    return SessionInfo(
        path=file.absolute(),
        id=str(header["id"]),
        cwd=cwd if isinstance(cwd, str) else "",
        name=scan.name,
        parent_session=parent if isinstance(parent, str) else None,
        created=_parse_time(header.get("timestamp"), mtime),
        modified=datetime.fromtimestamp(mtime, UTC),
        message_count=scan.message_count,
        first_message=scan.first_message,
        all_messages_text=" ".join(scan.texts)[:SEARCH_TEXT_LIMIT],
    )


_OLD_EXPORT_SUFFIX = ".export.jsonl"
"""Where earlier versions wrote a JSONL export without a path: beside the transcript, in the sessions
folder, as a copy holding the same id. Such files are exports, never sessions (exports now go to the
`exports` folder, which the scan does not enter)."""


def _files(sessions_dir: Path) -> list[Path]:
    """The transcripts of the folder itself (its sub-folders, such as `exports`, are not read)."""
    try:
        files = [p for p in sessions_dir.iterdir() if p.suffix == ".jsonl" and p.is_file()]
    except FileNotFoundError:
        return []
    return [p for p in files if not p.name.endswith(_OLD_EXPORT_SUFFIX)]


def _own_file(files: list[Path], session_id: str) -> Path:
    """Of several files holding one session id (a copy made by hand), the session's own
    (`<id>.jsonl`), else the first: a session is listed and opened once, and always from the same file."""
    return next((f for f in files if f.name == f"{session_id}.jsonl"), files[0])


def recorded_cwd(cwd: str | os.PathLike[str]) -> str:
    """How a header records `cwd`: absolute, with undecodable bytes of its name as U+FFFD (`ai.json_text`)."""
    return well_formed(os.path.abspath(cwd))


def list_sessions(sessions_dir: str | os.PathLike[str], cwd: str | os.PathLike[str] | None = None) -> list[SessionInfo]:
    """Every transcript in `sessions_dir` (only those started in `cwd`, if given), newest first."""
    wanted = recorded_cwd(cwd) if cwd is not None else None
    infos = [info for file in _files(Path(sessions_dir)) if (info := read_session_info(file))]
    by_id: dict[str, list[SessionInfo]] = {}
    for info in infos:
        by_id.setdefault(info.id, []).append(info)
    infos = [next(i for i in same if i.path == _own_file([i.path for i in same], sid)) for sid, same in by_id.items()]
    if wanted is not None:
        infos = [info for info in infos if info.cwd == wanted]
    return sorted(infos, key=lambda info: info.modified, reverse=True)


def most_recent(sessions_dir: str | os.PathLike[str], cwd: str | os.PathLike[str]) -> SessionInfo | None:
    """The most recently modified session started in `cwd`, with its listing details."""
    path = most_recent_path(sessions_dir, cwd)
    return read_session_info(path) if path is not None else None


def most_recent_path(sessions_dir: str | os.PathLike[str], cwd: str | os.PathLike[str]) -> Path | None:
    """The transcript to `--continue` in `cwd`: the newest by modification time, judged from headers alone
    (a long session is read once, by whoever opens it, not also here)."""
    wanted = recorded_cwd(cwd)
    newest: tuple[float, Path] | None = None
    for file in _files(Path(sessions_dir)):
        try:
            with file.open("rb") as handle:
                header = _parse(handle.readline())
            modified = file.stat().st_mtime
        except OSError:
            continue
        if header and header.get("type") == "session" and header.get("cwd") == wanted:
            if newest is None or modified > newest[0]:
                newest = (modified, file)
    return newest[1] if newest else None


def _compact(session_id: str) -> str:
    return session_id.replace("-", "").lower()


def _header_ids(sessions_dir: Path) -> dict[str, Path]:
    """Session id → file, read from the first line of each transcript only."""
    ids: dict[str, list[Path]] = {}
    for file in _files(sessions_dir):
        try:
            with file.open("rb") as handle:
                header = _parse(handle.readline())
        except OSError:
            continue
        if header and header.get("type") == "session" and isinstance(header.get("id"), str):
            ids.setdefault(str(header["id"]), []).append(file)
    return {session_id: _own_file(files, session_id) for session_id, files in ids.items()}


def find_session(sessions_dir: str | os.PathLike[str], query: str) -> SessionInfo:
    """Resolve a path, a full id, a session's name, or a unique part of an id (its start, middle or end;
    dashes optional) or of a name (case ignored).

    Ids are time-ordered, so sessions made minutes apart share their first digits: any part will do.
    An exact id wins, then an exact name; otherwise the parts of ids and names that match must belong
    to one session. Raises `SessionNotFoundError` listing the candidates (id, age, name, first prompt)
    when several match, or saying plainly that none does.
    """
    as_path = Path(query).expanduser()
    if (os.sep in query or query.endswith(".jsonl")) and as_path.is_file():
        info = read_session_info(as_path)
        if info is None:
            raise SessionNotFoundError(f"{query} is not a session transcript")
        return info
    return _one(query, _matches(Path(sessions_dir), query), Path(sessions_dir))


def find_listed_session(sessions_dir: str | os.PathLike[str], query: str) -> SessionInfo:
    """`find_session` for a client that may learn nothing of other files (a server's): a path names only
    a transcript the listing of `sessions_dir` holds (absolute, or relative to that folder; symlinks
    resolved), and whatever names no session is the one `SessionNotFoundError`, whether a file is there
    or not."""
    directory = Path(sessions_dir)
    if os.sep in query or "/" in query or query.endswith(".jsonl"):
        file = _listed_file(directory, query)
        info = read_session_info(file) if file is not None else None
        infos = [info] if info is not None else []
    else:
        infos = _matches(directory, query)
    if not infos:
        raise SessionNotFoundError(
            f"no session matches {query!r}: name one by its id (or a unique part of it), its name, "
            "or the path of its transcript in the sessions folder"
        )
    return _one(query, infos, directory)


def _listed_file(directory: Path, query: str) -> Path | None:
    """The transcript of `directory` a path names, or None (a path anywhere else, or no transcript)."""
    try:
        wanted = (directory / query).resolve()  # an absolute `query` stands for itself
        listed = {file.resolve(): file for file in _files(directory)}
    except (OSError, ValueError, RuntimeError):
        return None
    return listed.get(wanted)


def _matches(directory: Path, query: str) -> list[SessionInfo]:
    """The sessions of `directory` an id, a name, or a part of either names (see `find_session`)."""
    ids = _header_ids(directory)
    wanted, needle = query.strip(), _compact(query.strip())
    exact = [sid for sid in ids if _compact(sid) == needle] if needle else []
    if not exact:
        names = {sid: name for sid, file in ids.items() if (name := _latest_name(file)) is not None}
        exact = [sid for sid, name in names.items() if name == wanted] or [
            sid for sid, name in names.items() if name.casefold() == wanted.casefold()
        ]
        if not exact and wanted:
            by_name = {sid for sid, name in names.items() if wanted.casefold() in name.casefold()}
            exact = sorted(by_name | {sid for sid in ids if needle and needle in _compact(sid)})
    return [info for sid in exact if (info := read_session_info(ids[sid])) is not None]


def _one(query: str, infos: list[SessionInfo], directory: Path) -> SessionInfo:
    if len(infos) == 1:
        return infos[0]
    if not infos:
        where = "by id or name" if _files(directory) else f"there are no sessions in {directory}"
        raise SessionNotFoundError(f"no session matches {query!r} ({where})")
    raise SessionNotFoundError(_ambiguous(query, infos))


def find_session_path(sessions_dir: str | os.PathLike[str], query: str) -> Path:
    """`find_session(sessions_dir, query).path`, without summarising the transcript when `query` is one
    session's full id (`-r ID`): the summary read and scanned all of a 10,000-entry session, 20 ms of
    the terminal app's first paint, just before the session reads the file again (`benchmarks/bench_tui.py`)."""
    needle = _compact(query.strip())
    if needle and os.sep not in query and not query.endswith(".jsonl"):
        exact = [file for sid, file in _header_ids(Path(sessions_dir)).items() if _compact(sid) == needle]
        if len(exact) == 1:
            return exact[0].absolute()
    return find_session(sessions_dir, query).path


def _ambiguous(query: str, infos: list[SessionInfo]) -> str:
    from prime_jupyter.sessions.rows import session_row

    infos = sorted(infos, key=lambda info: info.modified, reverse=True)
    shown = [f"  {session_row(info)}" for info in infos[:10]]
    if len(infos) > 10:
        shown.append(f"  … and {len(infos) - 10} more")
    rows = "\n".join(shown)
    return f"{query!r} matches {len(infos)} sessions:\n{rows}\nchoose one by more of its id or by its full name"


def _latest_name(file: Path) -> str | None:
    """A transcript's name (its last `session_info` entry), without parsing anything else."""
    try:
        data = file.read_bytes()
    except OSError:
        return None
    last = data.rfind(b"\n" + _INFO_PREFIX)
    if last < 0:
        return None
    end = data.find(b"\n", last + 1)
    info = _parse(data[last + 1 : end if end >= 0 else len(data)])
    return _clean_name(info.get("name")) if info else None


def delete_session(path: str | os.PathLike[str]) -> None:
    """Remove a transcript file."""
    try:
        Path(path).unlink()
    except FileNotFoundError:
        raise SessionNotFoundError(f"no session file at {path}") from None
    except OSError as exc:
        raise SessionError(f"cannot delete {path}: {exc.strerror}") from exc


def rename_session(path: str | os.PathLike[str], name: str | None) -> None:
    """Name a saved session by appending a `session_info` entry.

    For a session that is open in this process, call `append_session_info` on its manager instead,
    so its leaf stays in step with the file.
    """
    SessionManager.open(path).append_session_info(name)
