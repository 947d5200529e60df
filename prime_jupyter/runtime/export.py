"""Exporting a session: the transcript file itself (JSONL), a self-contained HTML page to share, or a
notebook (`.ipynb`: prompts and answers as Markdown, `ipython` calls as code cells with their outputs)."""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

from prime_jupyter.ai.types import AssistantMessage, ImageContent, TextContent, ThinkingContent, ToolCall, UserMessage
from prime_jupyter.protocol.common import ExportFormat
from prime_jupyter.runtime.notebook_export import session_notebook
from prime_jupyter.runtime.views import branch_messages
from prime_jupyter.sessions.manager import SessionManager

__all__ = ["EXPORTS_FOLDER", "default_export", "export_session"]

_STYLE = """body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
.m{margin:1rem 0;padding:.6rem .9rem;border-radius:8px;white-space:pre-wrap}.user{background:#eef3ff}
.assistant{background:#f7f7f7}.toolResult{background:#fbfbf0;font-family:monospace;font-size:13px}
.error{border-left:4px solid #c33}.call{font-family:monospace;font-size:13px;color:#555}
details{color:#666}h1{font-size:1.2rem}img{max-width:100%}"""


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
    messages, entry_ids = branch_messages(manager)
    notebook = session_notebook(messages, entry_ids, session_id=manager.session_id)
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def _html(manager: SessionManager) -> str:
    messages, _ = branch_messages(manager)
    title = html.escape(manager.name or f"Session {manager.session_id}")
    body = [f"<h1>{title}</h1><p>{html.escape(manager.cwd)}</p>"]
    for message in messages:
        failed = getattr(message, "is_error", False) or getattr(message, "stop_reason", "") == "error"
        error = " error" if failed else ""
        body.append(f'<div class="m {message.role}{error}">{_content(message)}</div>')
    return f"<!doctype html><meta charset=utf-8><title>{title}</title><style>{_STYLE}</style>{''.join(body)}"


def _content(message: object) -> str:
    if isinstance(message, UserMessage) and isinstance(message.content, str):
        return html.escape(message.content)
    parts: list[str] = []
    for block in getattr(message, "content", []):
        if isinstance(block, TextContent):
            parts.append(html.escape(block.text))
        elif isinstance(block, ThinkingContent):
            parts.append(f"<details><summary>thinking</summary>{html.escape(block.thinking)}</details>")
        elif isinstance(block, ToolCall):
            args = html.escape(json.dumps(block.arguments, indent=2, ensure_ascii=False))
            parts.append(f'<div class="call">{html.escape(block.name)}({args})</div>')
        elif isinstance(block, ImageContent):
            parts.append(f'<img src="data:{block.mime_type};base64,{block.data}">')
    if isinstance(message, AssistantMessage) and message.error_message:
        parts.append(f"<p><b>Error:</b> {html.escape(message.error_message)}</p>")
    return "".join(parts)
