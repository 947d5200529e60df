"""What the agent's tools change in files and notebooks, recorded so a rewind can put it back.

Before each allowed call of `write`, `edit` or `notebook_edit`, the session's gate (`runtime.policy`)
has the target's current state kept (`before`); after the call, its new state (`after`). When the call
changed it, a `prime.file-change` entry in the transcript names both states: blobs in the session's
`SnapshotStore`, or null for "no such file". What code changes (`ipython`, `bash`, a notebook's own
cells) is not seen here: a rewind says so (`runtime.rewind`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import JsonValue

from prime_jupyter.ai.types import ToolCall
from prime_jupyter.sessions.snapshots import SnapshotStore, digest

if TYPE_CHECKING:
    from prime_jupyter.notebooks.workspace import NotebookWorkspace
    from prime_jupyter.runtime.agent_session import AgentSession

__all__ = ["CHANGE_ENTRY", "ChangeRecorder", "Target", "fingerprint", "keep_changes", "read_state"]

log = logging.getLogger(__name__)

CHANGE_ENTRY = "prime.file-change"
FILE_TOOLS = ("write", "edit")
NOTEBOOK_TOOL = "notebook_edit"


@dataclass(frozen=True)
class Target:
    """What a call changes. `path`: a file's absolute path, or a notebook's path as its store takes it;
    `key`: its identity (two calls on one file have one key); `shown`: how messages name it."""

    kind: Literal["file", "notebook"]
    path: str
    key: str
    shown: str


async def read_state(target: Target, notebooks: NotebookWorkspace | None) -> bytes | None:
    """The target's contents now (a notebook as canonical JSON); None when there is none."""
    if target.kind == "file":
        return await asyncio.to_thread(_read_file, Path(target.path))
    if notebooks is None:
        return None
    loaded = await notebooks.load(target.path)
    return None if loaded.content is None else json.dumps(loaded.content, sort_keys=True).encode()


def fingerprint(kind: str, state: bytes | None) -> str | None:
    """What tells a change by someone else: a file's bytes; a notebook's cells, types and sources (not
    outputs, counts or metadata, which running the agent's cells changes too)."""
    if state is None:
        return None
    if kind == "file":
        return digest(state)
    try:
        cells = json.loads(state).get("cells", [])
        shape = [(c.get("cell_type"), _source(c.get("source"))) for c in cells if isinstance(c, dict)]
    except (ValueError, AttributeError):
        return digest(state)
    return digest(json.dumps(shape).encode())


class ChangeRecorder:
    """Records the changes of one session's file and notebook tools (`record` appends the entry)."""

    def __init__(
        self,
        cwd: str,
        root: str | None,
        notebooks: NotebookWorkspace | None,
        store: SnapshotStore,
        record: Callable[[JsonValue], object],
    ) -> None:
        self.cwd = cwd
        self.root = root
        self.notebooks = notebooks
        self.store = store
        self._record = record
        self._pending: dict[str, tuple[Target, str | None]] = {}

    async def before(self, call: ToolCall) -> None:
        """Keep what the call's target holds now (nothing for other tools, or a target the tool will refuse)."""
        target = self._target(call)
        if target is None:
            return
        try:
            self._pending[call.id] = (target, self._keep(await read_state(target, self.notebooks)))
        except Exception as error:  # the tool will say what is wrong with the target
            log.info("cannot keep %s before %s: %s", target.shown, call.name, error)

    async def after(self, call: ToolCall) -> None:
        """Record the change, when the call made one."""
        pending = self._pending.pop(call.id, None)
        if pending is None:
            return
        target, before = pending
        try:
            after = self._keep(await read_state(target, self.notebooks))
        except Exception as error:
            log.warning("cannot keep %s after %s: %s", target.shown, call.name, error)
            return
        if after == before:
            return
        data: dict[str, JsonValue] = {
            "toolCallId": call.id,
            "tool": call.name,
            "kind": target.kind,
            "path": target.path,
            "key": target.key,
            "shown": target.shown,
            "before": before,
            "after": after,
        }
        self._record(data)

    def _keep(self, state: bytes | None) -> str | None:
        return None if state is None else self.store.put(state)

    def _target(self, call: ToolCall) -> Target | None:
        given = call.arguments.get("path") if isinstance(call.arguments, dict) else None
        if not isinstance(given, str):
            return None
        try:
            if call.name in FILE_TOOLS:
                from prime_jupyter.tools.filepaths import display_path, resolve_path

                path = resolve_path(given, self.cwd, self.root)
                return Target("file", str(path), str(path), display_path(path, self.cwd))
            if call.name == NOTEBOOK_TOOL and self.notebooks is not None:
                key, shown, _folder = self.notebooks.store.locate(given)
                return Target("notebook", given, key, shown)
        except Exception:  # a path the tool refuses: it says why, and there is nothing to keep
            return None
        return None


def keep_changes(
    session: AgentSession, tools: list[str], cwd: str, root: str | None, notebooks: NotebookWorkspace | None
) -> None:
    """Have `session` keep what its file and notebook tools change (when it has any), beside its transcript."""
    transcript = session.manager.path
    session.snapshots = SnapshotStore(transcript.parent / "snapshots" if transcript is not None else None)
    session.notebooks = notebooks
    session.file_root = root
    if not any(name in (*FILE_TOOLS, NOTEBOOK_TOOL) for name in tools):
        return
    record = lambda data: session.manager.append_custom(CHANGE_ENTRY, data)  # noqa: E731
    session.tool_policy.changes = ChangeRecorder(cwd, root, notebooks, session.snapshots, record)


def _read_file(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _source(source: object) -> str:
    if isinstance(source, list):
        return "".join(str(part) for part in source)
    return str(source or "")
