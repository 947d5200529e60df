"""Exporting a session: the transcript file itself (JSONL), a notebook (`.ipynb`: prompts and answers as
Markdown, `ipython` calls as code cells with their outputs), or that notebook as a self-contained HTML page
to share, rendered by nbconvert (Jupyter's own converter: Markdown, code, tables, plots, as JupyterLab
shows them) rather than by a renderer of our own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pydantic import JsonValue

from prime_jupyter.protocol.common import ExportFormat
from prime_jupyter.runtime.notebook_export import session_notebook
from prime_jupyter.runtime.views import branch_messages
from prime_jupyter.sessions.manager import SessionManager

__all__ = ["EXPORTS_FOLDER", "default_export", "export_session"]

_SUFFIXES: dict[ExportFormat, str] = {"html": ".html", "jsonl": ".jsonl", "ipynb": ".ipynb"}

EXPORTS_FOLDER = "exports"
"""Where an export without a path goes when the session works in the sessions folder itself: this folder of
it. Never beside the transcript: a JSONL export holds the session's id, and the sessions folder's scan would
take it for the session (listed twice, reopened from the copy after a delete)."""


def default_export(manager: SessionManager, fmt: ExportFormat) -> Path:
    """Where an export without a path goes: `prime-<id>.<ext>` in the session's working folder, the one the
    user's file browser shows, on every surface (the panel, `/export`, `%prime export`); in the `exports`
    folder when that working folder is the sessions folder (a copy there would be taken for the session)."""
    name = f"prime-{manager.session_id}{_SUFFIXES[fmt]}"
    folder = Path(manager.cwd)
    if manager.path is not None and _same_folder(folder, manager.path.parent):
        folder = manager.path.parent / EXPORTS_FOLDER
    return folder / name


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a.absolute() == b.absolute()


def export_session(manager: SessionManager, fmt: ExportFormat, path: str | None = None) -> Path:
    """Write the export and return where it went (default: `default_export`). Blocking."""
    manager.flush_now()
    target = Path(path).expanduser() if path else default_export(manager, fmt)
    if fmt == "jsonl" and manager.path is None:
        raise ValueError("an in-memory session has no transcript to export as JSONL; export html instead")
    if manager.path is not None and target.exists() and target.samefile(manager.path):
        raise ValueError(f"path: {str(target)!r} is the session's transcript itself; name another file")
    target.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "jsonl" and manager.path is not None:
        shutil.copyfile(manager.path, target)
    elif fmt == "ipynb":
        target.write_text(_ipynb(manager), encoding="utf-8")
    else:
        target.write_text(_html(manager), encoding="utf-8")
    return target


def _ipynb(manager: SessionManager) -> str:
    return json.dumps(_notebook(manager), indent=1, ensure_ascii=False) + "\n"


def _notebook(manager: SessionManager) -> dict[str, JsonValue]:
    messages, entry_ids = branch_messages(manager)
    return session_notebook(messages, entry_ids, session_id=manager.session_id)


def _html(manager: SessionManager) -> str:
    """The session's notebook as one HTML page (images embedded), in JupyterLab's look. What the user or the
    model wrote is sanitized: a `<script>` in a prompt or an answer must not run in whoever opens the page."""
    import nbformat  # imported when exporting: nbconvert costs a second at import
    from nbconvert import HTMLExporter

    notebook = nbformat.from_dict(_notebook(manager))  # type: ignore[no-untyped-call]
    notebook.metadata["title"] = manager.name or f"Session {manager.session_id}"  # the page's <title>
    exporter = HTMLExporter(  # type: ignore[no-untyped-call]
        template_name="lab", embed_images=True, sanitize_html=True, filters={"clean_html": _clean}
    )
    page, _resources = exporter.from_notebook_node(notebook)
    return str(page)


_TAGS = frozenset(
    "a abbr b blockquote br code del details div em h1 h2 h3 h4 h5 h6 hr i img kbd li ol p pre s span strong sub"
    " summary sup table tbody td tfoot th thead tr ul".split()
)
"""What Markdown and outputs render to. nbconvert's own `clean_html` keeps too little (no paragraphs,
headings, images or table heads) and escapes the rest into visible tags."""


def _allowed(tag: str, name: str, value: str) -> bool:
    if name in ("class", "title"):
        return True
    if tag == "a" and name == "href":
        return value.startswith(("http://", "https://", "mailto:", "#"))
    if tag == "img" and name == "src":
        return value.startswith(("data:image/", "http://", "https://"))
    return (tag, name) in {("img", "alt"), ("img", "width"), ("img", "height"), ("td", "align"), ("th", "align")}


def _clean(element: object) -> str:
    import bleach  # nbconvert's own sanitizer

    text = element.decode() if isinstance(element, bytes) else str(element)
    return str(bleach.clean(text, tags=_TAGS, attributes=_allowed, protocols={"http", "https", "mailto", "data"}))
