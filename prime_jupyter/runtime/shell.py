"""`ShellRun`: one of the user's shell commands (`!cmd`, `!!cmd`) run for a session, told as session events.

Every front end watching the session sees the command run: `ShellExecutionStart`, then the output in
`ShellExecutionOutput` chunks while it runs (`tools.user_command`), then `ShellExecutionEnd` with what the
transcript keeps (the `bashExecution` message and its entry id). A command that cannot run, or whose
task is stopped, still ends with `ShellExecutionEnd` (its `error` says why), so no watcher is left with
a command that seems to run forever.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.protocol.events import SessionEvent, ShellExecutionEnd, ShellExecutionOutput, ShellExecutionStart
from prime_jupyter.sessions.entries import BashExecutionMessage, MessageEntry
from prime_jupyter.tools.user_command import CommandRun, run_user_command

__all__ = ["ShellRun"]


class ShellRun:
    """`execution_id` names the command in its events (made up when None: a client may choose it, to
    know its own command among every client's)."""

    def __init__(
        self,
        command: str,
        include_in_context: bool,
        execution_id: str | None,
        emit: Callable[[SessionEvent], None],
    ) -> None:
        self.command = command
        self.include_in_context = include_in_context
        self.execution_id = execution_id or uuid.uuid4().hex[:12]
        self._emit = emit

    async def execute(
        self, cwd: str, signal: AbortSignal, append: Callable[[BashExecutionMessage], MessageEntry]
    ) -> tuple[BashExecutionMessage, str]:
        """Run the command in `cwd` until it ends or `signal` fires, and `append` it to the transcript.
        Raises ValueError for a command that cannot run."""
        self._emit(ShellExecutionStart(self.execution_id, self.command, self.include_in_context))
        try:
            run = await run_user_command(self.command, cwd, signal, self._output)
        except ValueError as exc:
            self._emit(self._end(None, None, error=str(exc)))
            raise
        except BaseException:
            self._emit(self._end(None, None, error="the command was stopped", cancelled=True))
            raise
        message = BashExecutionMessage(
            command=self.command,
            output=run.output,
            exit_code=run.exit_code,
            cancelled=run.cancelled,
            truncated=run.truncated,
            full_output_path=run.full_output_path,
            exclude_from_context=not self.include_in_context,
        )
        entry_id = append(message).id
        self._emit(self._end(run, entry_id))
        return message, entry_id

    def _output(self, chunk: str, skipped: int) -> None:
        self._emit(ShellExecutionOutput(self.execution_id, chunk, skipped))

    def _end(
        self, run: CommandRun | None, entry_id: str | None, error: str | None = None, cancelled: bool = False
    ) -> ShellExecutionEnd:
        return ShellExecutionEnd(
            self.execution_id,
            self.command,
            run.output if run is not None else "",
            exit_code=run.exit_code if run is not None else None,
            cancelled=run.cancelled if run is not None else cancelled,
            truncated=run is not None and run.truncated,
            full_output_path=run.full_output_path if run is not None else None,
            include_in_context=self.include_in_context,
            entry_id=entry_id,
            error=error,
        )
