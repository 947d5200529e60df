"""Exports without a path: written where the sessions folder's scan never takes them for the session."""

from __future__ import annotations

from pathlib import Path

import pytest
from kit.sessions import make_assistant, make_user

from prime_jupyter.runtime.export import export_session
from prime_jupyter.sessions.listing import find_session, list_sessions
from prime_jupyter.sessions.manager import SessionManager


def saved(sessions: Path, cwd: Path) -> SessionManager:
    manager = SessionManager.create(cwd, sessions)
    manager.append_message(make_user("hello"))
    manager.append_message(make_assistant("hi"))
    manager.flush_now()
    return manager


@pytest.mark.parametrize("fmt", ["jsonl", "html", "ipynb"])
def test_an_export_without_a_path_goes_to_the_sessions_working_folder(tmp_path: Path, fmt: str) -> None:
    """Issue 31 item 8: `/export` and `%prime export` wrote under the agent directory, which the file browser
    does not show, while the panel wrote into the workspace."""
    manager = saved(tmp_path / "agent" / "sessions", tmp_path / "work")
    target = export_session(manager, fmt)  # type: ignore[arg-type]
    assert target == tmp_path / "work" / f"prime-{manager.session_id}.{fmt}" and target.is_file()
    assert [info.path for info in list_sessions(tmp_path / "agent" / "sessions")] == [manager.path]


def test_a_session_working_in_the_sessions_folder_exports_to_its_exports_folder(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    manager = saved(sessions, sessions)
    target = export_session(manager, "jsonl")
    assert target == sessions / "exports" / f"prime-{manager.session_id}.jsonl"
    assert [info.path for info in list_sessions(sessions)] == [manager.path]


def test_exporting_twice_and_reopening_leaves_one_session(tmp_path: Path) -> None:
    """Regression (issue 27, item 2): the export shared the session's id in the sessions folder, so a
    restarted server listed it twice, opened the copy by id, and exporting that again failed (SameFileError)."""
    sessions = tmp_path / "sessions"
    manager = saved(sessions, tmp_path)
    first = export_session(manager, "jsonl")
    reopened = SessionManager.open(find_session(sessions, manager.session_id).path)  # as after a restart
    assert reopened.path == manager.path
    assert export_session(reopened, "jsonl") == first
    assert [info.path for info in list_sessions(sessions)] == [manager.path]
    assert first.read_bytes() == manager.path.read_bytes()  # type: ignore[union-attr]


def test_an_export_onto_the_transcript_itself_is_refused(tmp_path: Path) -> None:
    manager = saved(tmp_path / "sessions", tmp_path)
    before = manager.path.read_bytes()  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="the session's transcript itself"):
        export_session(manager, "jsonl", str(manager.path))
    assert manager.path.read_bytes() == before  # type: ignore[union-attr]


def test_the_html_page_is_the_sessions_notebook_rendered_by_nbconvert(tmp_path: Path) -> None:
    """Issue 25: the page came from a renderer of our own (raw text, no Markdown); now nbconvert renders the
    session's notebook: Markdown as HTML, the agent's code highlighted, its outputs, nothing executable."""
    manager = SessionManager.create(tmp_path, tmp_path / "sessions")
    manager.append_message(make_user("plot **x** <script>alert(1)</script>"))
    manager.append_message(make_assistant("Here is `df.head()`:\n\n| a | b |\n|---|---|\n| 1 | 2 |"))
    manager.append_session_info("Sales review")
    page = export_session(manager, "html", str(tmp_path / "out.html")).read_text()
    assert "<title>Sales review</title>" in page
    assert "<p>plot <strong>x</strong> &lt;script&gt;" in page  # shown as text, never run
    assert "<table>" in page and "<th>a</th>" in page and "<code>df.head()</code>" in page
