"""`PendingDialogRegistry`: the questions sessions ask their users, answered by id and kept on disk.

A question lives in its session's `SessionUI`, which asks it, times it out (none by default;
`PrimeApp.dialog_timeout` or settings.json `questionTimeoutS` set one) and resolves it; abort and
delete cancel it there too. The registry adds
what a server needs on top: persistence (answers go through the session's connection, which says
when the question is gone, and the route answers 404). Every change to a live session's pending questions rewrites
`<agent_dir>/pending-questions/<sessionId>.json`, which is removed when none are left.

**After a restart the questions are cancelled, not re-offered** (decided here). An answer is received
by the coroutine that asked, and that coroutine died with the old server process: re-offering the
question would collect an answer nobody can receive. So a question found on disk for a session that
is not live in this process is cancelled cleanly: its `ask` tool call gets a result saying the
server restarted before the user answered, appended to the transcript (hydration shows the question
as finished, and the model's next turn has a result for its call), and `question-resolved{cancelled:
"shutdown"}` goes to the session's clients. That happens for every file when the extension starts
(its first request: `PrimeBridge.start`), or when the session is opened, whichever comes first.
A clean shutdown cancels questions with `shutdown` before the sessions are disposed, so it leaves no
file behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from pathlib import Path

from prime_jupyter.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from prime_jupyter.protocol.frames import QuestionFrame, QuestionResolvedFrame
from prime_jupyter.protocol.questions import Question
from prime_jupyter.protocol.wire import WireModel, dump_json
from prime_jupyter.runtime.approvals import is_approval
from prime_jupyter.server.host.live import LiveSession
from prime_jupyter.server.host.ring import RingEntry
from prime_jupyter.sessions.entries import MessageEntry
from prime_jupyter.sessions.manager import SessionManager

__all__ = ["APPROVAL_RESTART_TEXT", "RESTART_TEXT", "PendingDialogRegistry", "StoredQuestions", "cancel_in_transcript"]

log = logging.getLogger(__name__)

RESTART_TEXT = (
    "The user did not answer: the server restarted before the question was answered. Decide sensibly or ask again."
)
RESTART_NOTE = "Cancelled: the server restarted before the question was answered."
APPROVAL_RESTART_TEXT = (
    "This call did not run: the server restarted before the user approved it. Make the call again if it is "
    "still needed (the user will be asked again)."
)
"""The result of a tool call whose approval was pending when the server went away: it never ran."""
"""What front ends show of it (`details.note`, as the `ask` tool's unanswered results have)."""


class StoredQuestions(WireModel):
    """The file format: the questions a session has pending, and the server process that asked them."""

    session_id: str
    questions: list[Question]
    pid: int | None = None

    def orphaned(self) -> bool:
        """Whether the process that asked is gone (another live server on the same agent dir keeps its own)."""
        if self.pid is None or self.pid == os.getpid():
            return True
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            return False
        return False


class PendingDialogRegistry:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._writes: dict[str, asyncio.Future[None]] = {}
        self.swept: dict[str, list[str]] = {}
        """Questions the start-up sweep cancelled, by session: announced when the session opens."""

    def path(self, session_id: str) -> Path:
        return self.directory / f"{session_id}.json"

    def stored_session_ids(self) -> list[str]:
        """Sessions with a question file (blocking: call from a thread)."""
        try:
            return [p.stem for p in self.directory.iterdir() if p.suffix == ".json"]
        except FileNotFoundError:
            return []

    # --- live sessions --------------------------------------------------------------------------

    def watch(self, live: LiveSession) -> None:
        """Keep the session's question file in step with its pending questions."""

        def on_entry(entry: RingEntry | None) -> None:
            if entry is not None and isinstance(entry.frame, QuestionFrame | QuestionResolvedFrame):
                self._save(live.session_id, live.session.ui.pending())

        live.listen(on_entry)

    async def reconcile(self, live: LiveSession) -> None:
        """Cancel what a previous server process left pending for this (just opened) session, and tell its
        clients about every question cancelled that way (here, or by the start-up sweep)."""
        cancelled = self.swept.pop(live.session_id, [])
        stored = await asyncio.to_thread(_read, self.path(live.session_id))
        if stored is not None and stored.orphaned():
            cancelled += [q.id for q in cancel_in_transcript(live.session.manager, stored.questions)]
            self._save(live.session_id, live.session.ui.pending())
        for question_id in cancelled:
            live.publish(QuestionResolvedFrame(id=question_id, cancelled="shutdown"))

    def reconcile_saved(self, session_id: str, transcript: Path | None) -> list[str]:
        """The same for a session that is not open (blocking: call from a thread); the cancelled ids."""
        stored = _read(self.path(session_id))
        if stored is not None and not stored.orphaned():
            return []
        if stored is not None and transcript is not None:
            cancel_in_transcript(SessionManager.open(transcript), stored.questions)
        _write(self.path(session_id), None)
        return [q.id for q in stored.questions] if stored is not None else []

    def forget(self, session_id: str) -> None:
        """The session was deleted: its question file goes too."""
        self._save(session_id, [])

    async def flush(self) -> None:
        """Wait for every file write in progress."""
        if self._writes:
            await asyncio.wait(list(self._writes.values()))

    # --- files ----------------------------------------------------------------------------------

    def _save(self, session_id: str, questions: list[Question]) -> None:
        stored = StoredQuestions(session_id=session_id, questions=questions, pid=os.getpid())
        data = dump_json(stored) if questions else None
        previous = self._writes.get(session_id)
        task = asyncio.ensure_future(self._write_after(previous, self.path(session_id), data))
        self._writes[session_id] = task
        task.add_done_callback(
            lambda done: self._writes.pop(session_id, None) if self._writes.get(session_id) is done else None
        )

    @staticmethod
    async def _write_after(previous: asyncio.Future[None] | None, path: Path, data: str | None) -> None:
        if previous is not None:
            await asyncio.wait({previous})
        try:
            await asyncio.to_thread(_write, path, data)
        except OSError:
            log.exception("cannot write the pending questions file %s", path)


def cancel_in_transcript(manager: SessionManager, questions: list[Question]) -> list[Question]:
    """Give each question's tool call that has no result on the branch a result saying the server
    restarted; returns the questions (all of them are cancelled, recorded or not)."""
    branch = manager.path_to(manager.leaf_id)
    messages = [entry.message for entry in branch if isinstance(entry, MessageEntry)]
    calls = {
        block.id: block.name
        for message in messages
        if isinstance(message, AssistantMessage)
        for block in message.content
        if isinstance(block, ToolCall)
    }
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolResultMessage)}
    for question in questions:
        call_id = question.tool_call_id
        if call_id is not None and call_id in calls and call_id not in answered:
            approval = is_approval(question)
            result = ToolResultMessage(
                tool_call_id=call_id,
                tool_name=calls[call_id],
                content=[TextContent(text=APPROVAL_RESTART_TEXT if approval else RESTART_TEXT)],
                details={"note": RESTART_NOTE},
                is_error=approval,
            )
            manager.append_message(result)
            answered.add(call_id)
    return questions


def _read(path: Path) -> StoredQuestions | None:
    try:
        return StoredQuestions.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        log.warning("ignoring an unreadable pending questions file %s", path)
        return None


def _write(path: Path, data: str | None) -> None:
    """Replace the file atomically with `data`, or remove it."""
    if data is None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(data, encoding="utf-8")
    os.replace(temporary, path)
