"""Operations on a session that every host performs the same way, written once.

Three hosts drive sessions: the server's chat routes (the panel), its connection routes
(`HttpAgentConnection`), and `InProcessAgentConnection` (the terminal app, print mode, notebooks).
Each used to write its own fork, seeding, cwd resolution, thinking-level parsing and export path,
with small differences in meaning. These functions are the one meaning; what a host does with the
result (a server opens a fork beside its source, an in-process connection replaces its session with
it) stays the host's.

Nothing here speaks HTTP: a value a user got wrong raises `ValueError` with a message naming it
(a route answers it with a 400, a terminal prints it).

| operation | function |
|---|---|
| thinking level from a name | `thinking_level`, `parse_thinking_level` |
| a path a user typed, checked before any system call | `user_path` |
| a path kept inside a server's root | `confine` |
| working directory a request names | `resolve_cwd` |
| first messages of a new session | `seed_transcript`, `seed_session` |
| fork and clone into a new transcript | `fork_transcript`, `clone_transcript` |
| where an export goes, in what format | `export_format`, `export_target` |
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from prime_jupyter.ai.models import THINKING_LEVELS, Model, ThinkingLevel
from prime_jupyter.ai.types import AssistantMessage, TextContent, UserMessage
from prime_jupyter.errors import OutsideRootError
from prime_jupyter.protocol.common import ExportFormat
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.sessions.fork import ForkPosition
from prime_jupyter.sessions.manager import SessionManager

if TYPE_CHECKING:
    from prime_jupyter.protocol.requests import SeedMessage  # the chat routes' models: not for a headless run

__all__ = [
    "ExportFormat",
    "SavedTranscript",
    "clone_transcript",
    "confine",
    "export_format",
    "export_target",
    "fork_transcript",
    "parse_thinking_level",
    "resolve_cwd",
    "seed_session",
    "seed_transcript",
    "thinking_level",
    "user_path",
]

NAME_MAX = 255
"""Longest file name (one path component, in bytes) the file systems we run on hold."""


# --- thinking levels ------------------------------------------------------------------------------


def thinking_level(value: str) -> ThinkingLevel | None:
    """The level named `value` (`"off"`, `"minimal"`, ... `"xhigh"`), or None when it names none."""
    return next((level for level in THINKING_LEVELS if level == value), None)


def parse_thinking_level(value: str | None, field: str | None = None) -> ThinkingLevel | None:
    """The level a request names; None when it names none (`value` is None).

    Raises `ValueError("<field>: unknown thinking level 'x'")` (without `field`: no prefix) when
    `value` is not a level. Whether the session's model supports it is not checked here: the session
    clamps it (`AgentSession.set_thinking_level`)."""
    if value is None:
        return None
    level = thinking_level(value)
    if level is None:
        prefix = f"{field}: " if field else ""
        raise ValueError(f"{prefix}unknown thinking level {value!r}")
    return level


# --- working directories --------------------------------------------------------------------------


def user_path(field: str, value: str) -> Path:
    """`value` as a path, refused with `ValueError("<field>: ...")` when no file system could hold it: a
    NUL byte, a character the file system encoding cannot write, a name longer than `NAME_MAX` bytes.

    Checked here, before a system call, so that the user reads what is wrong with the path instead of
    `embedded null byte` or `File name too long` from deep inside an export or a `stat`."""
    if "\0" in value:
        raise ValueError(f"{field}: a path cannot hold a NUL byte")
    try:
        names = [os.fsencode(name) for name in PurePath(value).parts]
    except UnicodeEncodeError:
        raise ValueError(f"{field}: the path holds a character no file name can hold") from None
    for name in names:
        if len(name) > NAME_MAX:
            raise ValueError(f"{field}: a name in the path is {len(name)} bytes long; the limit is {NAME_MAX}")
    return Path(value)


def confine(path: Path, root: Path | None, field: str, named: str) -> Path:
    """`path` (symlinks followed) when it lies inside `root`, which a server's requests may not leave;
    `root` None confines nothing (a terminal, a notebook, a server that allows it). Raises
    `OutsideRootError` naming `field` and the path as the user wrote it (`named`)."""
    if root is None:
        return path
    resolved = _resolved(path)
    if resolved is None or not resolved.is_relative_to(_resolved(root) or root):
        raise OutsideRootError(
            f"{field}: {named!r} is outside the server's root directory {str(root)!r}; name a path inside it"
            " (the server's owner can allow more with c.PrimeApp.allow_outside_root = True)"
        )
    return resolved


def resolve_cwd(
    root: Path, requested: str | None, default: Path | None = None, *, confined_to: Path | None = None
) -> Path:
    """The working directory a request names: `requested` relative to `root` (an absolute path stands
    for itself) and resolved; when it names none, `default`, else `root`.

    `root` is where a host starts sessions (a server's root directory, the terminal's cwd); `default`
    the directory of the session the request comes from (a new session beside it), taken as it is.
    A named directory must lie inside `confined_to` when given (`confine`: `OutsideRootError`).
    Raises `ValueError("cwd: ...")` when the directory is not there or no path could name it (see
    `user_path`). Blocking (one `stat`)."""
    if not requested and default is not None:
        return default
    if not requested:
        return root
    path = confine(root / user_path("cwd", requested), confined_to, "cwd", requested)
    resolved = _resolved(path)
    if resolved is None or not resolved.is_dir():
        raise ValueError(f"cwd: {requested!r} is not a directory")
    return resolved


def _resolved(path: Path) -> Path | None:
    """`path` with its symlinks followed; None when they loop."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
        return None


# --- seeding --------------------------------------------------------------------------------------


def seed_transcript(manager: SessionManager, seeds: Iterable[SeedMessage], model: Model) -> None:
    """Append the messages a client brought along to a new transcript (capability `seed-messages`):
    user seeds as user messages, assistant seeds as text answers of `model`.

    For a host that makes the transcript before its session (an in-process connection replacing its
    session); a host that already has the session calls `seed_session`."""
    for seed in seeds:
        if seed.role == "user":
            manager.append_message(UserMessage(content=seed.text))
        else:
            text = [TextContent(text=seed.text)]
            manager.append_message(
                AssistantMessage(content=text, api=model.api, provider=model.provider, model=model.id)
            )


def seed_session(session: AgentSession, seeds: Iterable[SeedMessage]) -> None:
    """Start a new session with seed messages, as its own model's answers, then write its transcript
    at once, seeded or not, so that listings show it before its first answer."""
    seed_transcript(session.manager, seeds, session.model)
    session.save()


# --- fork and clone -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SavedTranscript:
    """A transcript written beside its source by a fork or a clone, not yet anyone's live session."""

    manager: SessionManager
    selected_text: str | None = None
    """For a fork "before" a user message: that message's text, to pre-fill the editor."""

    @property
    def session_id(self) -> str:
        return self.manager.session_id


def fork_transcript(
    session: AgentSession, entry_id: str, position: ForkPosition = "before", sessions_dir: Path | None = None
) -> SavedTranscript:
    """Write a new transcript holding the session's branch up to `entry_id` ("at") or up to its parent
    ("before"), and return it; the session itself is left as it is (live, even streaming).

    `sessions_dir` defaults to the session's own directory. Written at once, so the fork is listed and
    can be opened by id. A server opens it beside its source (`chat/command fork` answers its id, the
    connection's `fork` follows it); an in-process connection replaces its session with it. Raises
    `SessionError` when `entry_id` is not on the transcript."""
    forked = session.manager.fork(entry_id, position, sessions_dir)
    forked.manager.flush_now()
    return SavedTranscript(forked.manager, forked.selected_text)


def clone_transcript(session: AgentSession, sessions_dir: Path | None = None) -> SavedTranscript:
    """Write a new transcript holding the session's active branch (root → leaf), like `fork_transcript`."""
    manager = session.manager.clone(sessions_dir)
    manager.flush_now()
    return SavedTranscript(manager)


# --- export ---------------------------------------------------------------------------------------


_BY_SUFFIX: dict[str, ExportFormat] = {".jsonl": "jsonl", ".ipynb": "ipynb"}


def export_format(requested: ExportFormat | None, path: str | None) -> ExportFormat:
    """The format an export is written in: the one requested, else the one a `.jsonl` or `.ipynb` path
    names, else `html`."""
    if requested is not None:
        return requested
    return next((fmt for suffix, fmt in _BY_SUFFIX.items() if path and path.endswith(suffix)), "html")


def _export_name(path: str) -> Path:
    """`path` as a file to write, refused with `ValueError("path: ...")` naming the rule it breaks: what
    `user_path` refuses, a control character (a newline), a name of spaces only, a trailing slash. Each was
    written as given, leaving a file no listing shows well, or a folder's name read as a file's."""
    named = user_path("path", path)
    if any(unicodedata.category(char) == "Cc" for char in path):
        raise ValueError("path: a file name cannot hold a control character (a newline, a tab); write it on one line")
    if path.endswith(("/", os.sep)):
        raise ValueError(f"path: {path!r} ends in a slash, which names a folder; name a file in it")
    if any(not part.strip() for part in PurePath(path).parts):
        raise ValueError(f"path: {path!r} holds a name made of spaces only; give every name a visible character")
    return named


def export_target(cwd: str | Path, path: str | None, confined_to: Path | None = None) -> str | None:
    """Where an export named `path` goes: relative to the session's working directory `cwd` (an absolute
    path stands for itself); None when no path is named (`runtime.export.export_session` then writes
    `prime-<id>.<ext>` in the session's working folder, `runtime.export.default_export`). Inside
    `confined_to` when given (`confine`: `OutsideRootError`).
    Raises `ValueError("path: ...")` when no file could be written there (see `user_path`; an existing
    directory)."""
    if not path:
        return None
    target = Path(cwd) / _export_name(path)
    confine(target, confined_to, "path", path)
    if target.is_dir():
        raise ValueError(f"path: {path!r} is a directory; name a file in it")
    return str(target)
