"""`ShellRun`: one of the user's shell commands (`!cmd`, `!!cmd`) run for a session, told as session events.

Every front end watching the session sees the command run: `ShellExecutionStart`, then the output in
`ShellExecutionOutput` chunks while it runs (`tools.user_command`), then `ShellExecutionEnd` with what the
transcript keeps (the `bashExecution` message and its entry id). A command that cannot run, or whose
task is stopped, still ends with `ShellExecutionEnd` (its `error` says why), so no watcher is left with
a command that seems to run forever. While it runs, `running()` is what a snapshot tells of it (the
end of its output so far, bounded as a chunk is), so a client attaching mid-command draws it at once.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.protocol.events import SessionEvent, ShellExecutionEnd, ShellExecutionOutput, ShellExecutionStart
from prime_jupyter.protocol.snapshot import RunningShell
from prime_jupyter.sessions.entries import BashExecutionMessage, MessageEntry
from prime_jupyter.tools.user_command import MAX_CHUNK_BYTES, CommandRun, run_user_command

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
        self._started = False
        self._ended = False
        self._output_so_far = ""
        self._skipped = 0

    def running(self) -> RunningShell | None:
        """The command as a snapshot tells it, between its start and end events (None before and after):
        the events after the snapshot continue exactly what it holds."""
        if not self._started or self._ended:
            return None
        return RunningShell(
            execution_id=self.execution_id,
            command=self.command,
            include_in_context=self.include_in_context,
            output=self._output_so_far,
            skipped=self._skipped,
        )

    async def execute(
        self,
        cwd: str,
        signal: AbortSignal,
        append: Callable[[BashExecutionMessage], MessageEntry],
        env: Mapping[str, str] | None = None,
    ) -> tuple[BashExecutionMessage, str]:
        """Run the command in `cwd` (in `env`, else this process's environment) until it ends or `signal`
        fires, and `append` it to the transcript.
        Raises ValueError for a command that cannot run."""
        self._started = True
        self._emit(ShellExecutionStart(self.execution_id, self.command, self.include_in_context))
        try:
            run = await run_user_command(self.command, cwd, signal, self._output, env)
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
        self._keep(chunk, skipped)
        self._emit(ShellExecutionOutput(self.execution_id, chunk, skipped))

    def _keep(self, chunk: str, skipped: int) -> None:
        """Add a chunk to the output so far, of which only the last `MAX_CHUNK_BYTES` (from a character's
        start on) are kept: `skipped` counts the bytes left out before them."""
        if skipped:
            self._skipped += skipped + len(self._output_so_far.encode())
            self._output_so_far = chunk
        else:
            self._output_so_far += chunk
        if len(self._output_so_far) * 4 <= MAX_CHUNK_BYTES:
            return  # short enough whatever its characters: not encoded
        data = self._output_so_far.encode()
        cut = max(0, len(data) - MAX_CHUNK_BYTES)
        while cut < len(data) and data[cut] & 0xC0 == 0x80:  # a UTF-8 continuation byte
            cut += 1
        if cut:
            self._skipped += cut
            self._output_so_far = data[cut:].decode()

    def _end(
        self, run: CommandRun | None, entry_id: str | None, error: str | None = None, cancelled: bool = False
    ) -> ShellExecutionEnd:
        self._ended = True
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
