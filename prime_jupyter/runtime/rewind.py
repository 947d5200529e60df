"""Rewind: the files and notebooks the agent changed since a user message put back as they were before it,
and the conversation continued from there as a new branch (the old one stays in the tree).

What the file and notebook tools changed is known (`runtime.changes`); each target goes back to the state
it had before the first change after the message, unless someone changed it since the agent's last
change (a conflict: kept as it is, and said). What code did (`ipython`, `bash`, `notebook_run`, the
user's `!` commands) cannot be undone: the calls are counted, and the names the kernel gained or changed
since are listed (the kernel is not rolled back). A `prime.rewind` entry on the new branch records it.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from prime_jupyter._atomic import atomic_write
from prime_jupyter.ai.types import AssistantMessage, ToolCall, UserMessage
from prime_jupyter.errors import BusyError
from prime_jupyter.protocol.common import RewindResult
from prime_jupyter.runtime.changes import CHANGE_ENTRY, Target, fingerprint, read_state
from prime_jupyter.sessions.entries import AnyEntry, BashExecutionMessage, CustomEntry, MessageEntry
from prime_jupyter.sessions.snapshots import SnapshotStore
from prime_jupyter.tools.filepaths import resolve_path

if TYPE_CHECKING:
    from prime_jupyter.notebooks.workspace import NotebookWorkspace
    from prime_jupyter.runtime.agent_session import AgentSession

__all__ = ["CODE_TOOLS", "KERNEL_CHANGES_ENTRY", "REWIND_ENTRY", "rewind", "session_snapshots", "summary"]

KERNEL_CHANGES_ENTRY = "prime.kernel-changes"
"""What a run's code did to the kernel's names (`{"created", "changed", "deleted", "report"}`), as the user
was told."""
REWIND_ENTRY = "prime.rewind"
CODE_TOOLS = ("ipython", "bash", "notebook_run")


def summary(result: RewindResult) -> str:
    """The few lines every surface shows of a rewind."""
    restored, conflicts = result.restored, result.conflicts
    lines = [f"Rewound: restored {', '.join(restored)}." if restored else "Rewound: no file to restore."]
    if conflicts:
        lines.append(f"Kept, changed by someone else since: {', '.join(conflicts)}.")
    lines.extend(f"Not restored: {item}." for item in result.left)
    if result.code_runs:
        runs = ", ".join(f"{count} {_plural(name, count)}" for name, count in result.code_runs.items())
        lines.append(f"Code ran since ({runs}): what it changed on disk is not undone.")
    if result.kernel:
        lines.append(f"The kernel is not rolled back: since then its code {'; '.join(result.kernel)}.")
    return "\n".join(lines)


@dataclass
class _Span:
    """One target's changes since the message: the state before the first, and after the last."""

    target: Target
    before: str | None
    after: str | None


async def rewind(session: AgentSession, entry_id: str, notebooks: NotebookWorkspace | None) -> RewindResult:
    """Rewind `session` to before its user message `entry_id` (on the current branch). Raises
    `ValueError` for an entry that is not one, `BusyError` while a run goes on."""
    if session.is_running:
        raise BusyError("wait for the run to finish (or abort it) before rewinding")
    manager = session.manager
    path = manager.path_to(manager.leaf_id)
    index = next((i for i, e in enumerate(path) if e.id == entry_id), None)
    if index is None or not _is_user_message(path[index]):
        raise ValueError(f"{entry_id!r} is not a user message on this session's current branch")
    since = path[index:]
    report = RewindResult(code_runs=_code_runs(since), kernel=_kernel_reports(since))
    store = session_snapshots(session)
    for span in _spans(since):
        await _put_back(span, store, notebooks, report, session.cwd, session.file_root)
    report.editor_text = await session.navigate_tree(entry_id)
    report.summary = summary(report)
    recorded = report.model_dump(mode="json", by_alias=True, exclude={"command", "editor_text", "summary"})
    manager.append_custom(REWIND_ENTRY, {"entryId": entry_id, **recorded})
    return report


def session_snapshots(session: AgentSession) -> SnapshotStore:
    """Where the session's snapshots are: beside its transcripts, or in memory."""
    if session.snapshots is None:
        transcript = session.manager.path
        session.snapshots = SnapshotStore(transcript.parent / "snapshots" if transcript is not None else None)
    return session.snapshots


def _is_user_message(entry: AnyEntry) -> bool:
    return isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage)


def _spans(entries: Sequence[AnyEntry]) -> list[_Span]:
    spans: dict[str, _Span] = {}
    for entry in entries:
        if not (isinstance(entry, CustomEntry) and entry.custom_type == CHANGE_ENTRY):
            continue
        data = entry.data
        if not isinstance(data, dict):
            continue
        kind, key, path, shown = data.get("kind"), data.get("key"), data.get("path"), data.get("shown")
        if kind not in ("file", "notebook") or not all(isinstance(v, str) for v in (key, path, shown)):
            continue
        before, after = data.get("before"), data.get("after")
        target = Target("file" if kind == "file" else "notebook", str(path), str(key), str(shown))
        span = spans.get(target.key)
        if span is None:
            spans[target.key] = _Span(target, before if isinstance(before, str) else None, None)
            span = spans[target.key]
        span.after = after if isinstance(after, str) else None
    return list(spans.values())


async def _put_back(
    span: _Span,
    store: SnapshotStore,
    notebooks: NotebookWorkspace | None,
    report: RewindResult,
    cwd: str,
    root: str | None,
) -> None:
    target = span.target
    try:
        now = await read_state(target, notebooks)
    except Exception as error:
        report.left.append(f"{target.shown} (cannot read it now: {error})")
        return
    last = store.get(span.after) if span.after else None
    if span.after and last is None:
        report.left.append(f"{target.shown} (its snapshot is gone)")
        return
    if fingerprint(target.kind, now) != fingerprint(target.kind, last):
        report.conflicts.append(target.shown)
        return
    before = store.get(span.before) if span.before else None
    if span.before and before is None:
        report.left.append(f"{target.shown} (its snapshot is gone)")
        return
    try:
        if target.kind == "file":
            path = resolve_path(target.path, cwd, root)  # a server writes back only inside its root
            await asyncio.to_thread(_restore_file, path, before)
        elif before is None:
            report.left.append(f"{target.shown} (a notebook the agent created: delete it yourself if unwanted)")
            return
        elif notebooks is None:
            report.left.append(f"{target.shown} (this session has no notebook tools to write it with)")
            return
        else:
            content = json.loads(before)
            await notebooks.update(target.path, lambda _loaded: (content, None))
    except Exception as error:
        report.left.append(f"{target.shown} ({error})")
        return
    report.restored.append(target.shown)


def _restore_file(path: Path, before: bytes | None) -> None:
    if before is None:
        os.remove(path)  # the agent created it
    else:
        atomic_write(path, before)


def _code_runs(entries: Sequence[AnyEntry]) -> dict[str, int]:
    runs: dict[str, int] = {}
    for entry in entries:
        if not isinstance(entry, MessageEntry):
            continue
        message = entry.message
        if isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, ToolCall) and block.name in CODE_TOOLS:
                    runs[block.name] = runs.get(block.name, 0) + 1
        elif isinstance(message, BashExecutionMessage):
            runs["!"] = runs.get("!", 0) + 1
    return runs


def _kernel_reports(entries: Sequence[AnyEntry]) -> list[str]:
    return [
        str(entry.data["report"])
        for entry in entries
        if isinstance(entry, CustomEntry)
        and entry.custom_type == KERNEL_CHANGES_ENTRY
        and isinstance(entry.data, dict)
        and isinstance(entry.data.get("report"), str)
    ]


def _plural(tool: str, count: int) -> str:
    """`3 ipython calls`, `1 ! command`."""
    noun = "command" if tool == "!" else "call"
    return f"{tool} {noun}{'s' if count != 1 else ''}"
