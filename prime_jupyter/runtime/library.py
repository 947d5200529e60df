"""The saved-session library as front ends see it: list, find, open, create, rename, delete.

Front ends reach transcripts only through the runtime (design.md §1); these are the runtime's doors to
`prime_jupyter.sessions` for whole sessions, as opposed to a live session's own transcript.
"""

from __future__ import annotations

from pathlib import Path

from prime_jupyter.protocol.common import SessionSummary
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.views import session_summary
from prime_jupyter.sessions.listing import delete_session, find_session, list_sessions, rename_session
from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.sessions.rows import session_row

__all__ = [
    "SessionManager",
    "create_manager",
    "delete_saved",
    "list_summaries",
    "open_manager",
    "rename_saved",
    "resolve_path",
    "saved_rows",
]


def list_summaries(directory: Path, cwd: str | None, live: dict[str, AgentSession]) -> list[SessionSummary]:
    """Saved sessions newest first (those of `cwd`, or all), marked running/idle when live here."""
    return [session_summary(info, live.get(info.id)) for info in list_sessions(directory, cwd)]


def saved_rows(directory: Path, cwd: str | None) -> list[str]:
    """One line per saved session (of `cwd`, or all with their folder), newest first: `sessions.rows`."""
    return [session_row(info) + (f"  in {info.cwd}" if cwd is None else "") for info in list_sessions(directory, cwd)]


def resolve_path(directory: Path, ref: str) -> Path:
    """A session's file from its id, a unique id prefix or suffix, or a path."""
    return find_session(directory, ref).path


def open_manager(directory: Path, ref: str) -> SessionManager:
    return SessionManager.open(resolve_path(directory, ref))


def create_manager(cwd: str, directory: Path) -> SessionManager:
    return SessionManager.create(cwd, directory)


def rename_saved(directory: Path, ref: str, name: str) -> None:
    rename_session(resolve_path(directory, ref), name)


def delete_saved(directory: Path, ref: str) -> None:
    delete_session(resolve_path(directory, ref))
