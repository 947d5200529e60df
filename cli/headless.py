"""Print and JSON modes: run one prompt to completion through an `AgentConnection`, without a UI."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from typing import TextIO

from pydantic import JsonValue

from prime_jupyter import gc_policy
from prime_jupyter.ai.json_text import json_text, well_formed
from prime_jupyter.ai.types import AssistantMessage, ImageContent
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.types import ConnectionEvent, SessionEventReceived
from prime_jupyter.protocol.codec import event_to_json
from prime_jupyter.protocol.events import AgentEnd, AutoRetryStart, MessageStart, Notify, SessionEvent

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_READER_GONE",
    "INTERRUPTED",
    "resume_command",
    "retry_line",
    "run_headless",
    "silence_stdout",
]


EXIT_READER_GONE = 141
"""What a shell reports for a program whose pipe reader left (128 + SIGPIPE), e.g. `... | head`."""

EXIT_INTERRUPTED = 130
"""What a shell reports for a program stopped by Ctrl+C (128 + SIGINT)."""

INTERRUPTED = "interrupted (Ctrl+C): the run was stopped"


class _JsonWriter:
    """Collects one line per event and writes them out once per event-loop pass, so bursts of deltas
    share one write (the caller flushes lifecycle events at once, with the deltas before them).

    The lines are joined here, not left to the stream's buffer: with `PYTHONUNBUFFERED` set (common in
    containers, and in the benchmark's environment) every `write` on stdout is a `write(2)` of its own,
    and a tool-calling turn emits about 17 lines, 9 of them deltas.

    When the reader of stdout goes away (`jupyter prime --mode json ... | head`), the writer says so
    once (`on_gone`, which stops the run) and writes nothing more; stdout then points at /dev/null, so
    the interpreter's own last flush finds nothing to complain about."""

    def __init__(self, out: TextIO, on_gone: Callable[[], None]) -> None:
        self._out = out
        self._on_gone = on_gone
        self._pending: list[str] = []
        self._flush_scheduled = False
        self.gone = False

    def line(self, text: str) -> None:
        if self.gone:
            return
        self._pending.append(text)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def flush(self) -> None:
        if self.gone:
            return
        pending, self._pending = self._pending, []
        try:
            if pending:
                self._out.write("\n".join(pending) + "\n")
            self._out.flush()
        except BrokenPipeError:
            self._went()

    def _flush(self) -> None:
        self._flush_scheduled = False
        self.flush()

    def _went(self) -> None:
        self.gone = True
        silence_stdout()
        self._on_gone()


def silence_stdout() -> None:
    """Point stdout at /dev/null (its reader has gone)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _start_up_is_over(event: SessionEvent) -> bool:
    """The first answer starts to stream (or the run ended without one). Until then start-up is still
    going: the provider's SDK is imported and its client built (a collection pass then costs about a
    tenth of that import), and the user's own `message_start` comes before any of that."""
    if isinstance(event, MessageStart):
        return event.message.role == "assistant"
    return event.type in ("message_update", "agent_end")


async def run_headless(
    connection: AgentConnection,
    text: str,
    images: list[ImageContent],
    json_mode: bool,
    *,
    say_session: bool = True,
) -> int:
    """Run the prompt; print the answer (or every event as a JSON line); return the exit code.

    In JSON mode the first line is the transcript's header (`ConnectionState.header`). Retries, and
    notices of level warning or error (an extension that failed), are said on stderr as they come.
    Ctrl+C (SIGINT, which a terminal sends to the whole foreground process group) aborts the run
    wherever it is (streaming, a tool, a retry's wait) and exits 130, saying so; the agent's kernel runs
    in a session of its own, so it is interrupted by the abort, not by the terminal. `say_session`: end
    with a line naming the transcript written and how to resume it."""
    stopping: list[asyncio.Future[None]] = []
    interrupted: list[bool] = []

    def stop_run() -> None:
        stopping.append(asyncio.ensure_future(connection.abort()))

    def on_sigint() -> None:
        if not interrupted:
            print("prime: interrupted (Ctrl+C): stopping the run", file=sys.stderr, flush=True)
        interrupted.append(True)
        stop_run()

    writer = _JsonWriter(sys.stdout, stop_run)
    finals: list[AssistantMessage] = []
    told: list[str] = []
    """The run's info notices: what a session command (`-p /mcp`, a run of no messages) answers."""
    commands: list[bool] = []

    def on_event(event: ConnectionEvent) -> None:
        if not isinstance(event, SessionEventReceived):
            return
        if _start_up_is_over(event.event):
            gc_policy.start_up_done()
        if json_mode:
            writer.line(event_to_json(event.event))
            if event.event.type != "message_update":
                writer.flush()  # a reader learns at once that a tool started or a turn ended
        if isinstance(event.event, AutoRetryStart):
            print(f"prime: {retry_line(event.event)}", file=sys.stderr, flush=True)
        if isinstance(event.event, Notify) and event.event.level != "info":  # an extension that failed
            print(f"prime: {event.event.level}: {event.event.message}", file=sys.stderr, flush=True)
        elif isinstance(event.event, Notify):
            told.append(event.event.message)
        if isinstance(event.event, AgentEnd):
            commands[:] = [not event.event.messages]
            finals[:] = [m for m in event.event.messages if isinstance(m, AssistantMessage)][-1:]

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, on_sigint)
    try:
        if json_mode:
            header: dict[str, JsonValue] = (await connection.get_state()).header
            writer.line(json_text(header))  # as the transcript has it: half a character repaired
        connection.subscribe(on_event)
        if not interrupted:
            await connection.prompt(text, images or None)
        await connection.wait_for_idle()
        if stopping:
            await asyncio.wait(stopping)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        writer.flush()
        gc_policy.start_up_done()
    if commands == [True] and told and not interrupted and not json_mode:  # a command: its notices answer
        writer.line(well_formed("\n".join(told)))
        writer.flush()
        code = EXIT_READER_GONE if writer.gone else 0
    else:
        code = _outcome(finals[0] if finals else None, writer, json_mode, bool(interrupted))
    if say_session:
        await _say_session(connection)
    return code


def _outcome(final: AssistantMessage | None, writer: _JsonWriter, json_mode: bool, interrupted: bool) -> int:
    """Print the answer or why there is none; the exit code."""
    if writer.gone:
        return EXIT_READER_GONE  # the reader chose to stop reading: no error to report
    if interrupted:
        print(f"error: {INTERRUPTED}", file=sys.stderr)
        return EXIT_INTERRUPTED
    if final is None or final.stop_reason in ("error", "aborted"):
        reason = final.error_message if final is not None else "the run produced no answer"
        print(f"error: {reason}", file=sys.stderr)
        return EXIT_INTERRUPTED if final is not None and final.stop_reason == "aborted" else 1
    if not json_mode:
        writer.line(well_formed(final.text()))  # half a character would fail the write
        writer.flush()
        return EXIT_READER_GONE if writer.gone else 0
    return 0


def retry_line(event: AutoRetryStart) -> str:
    """What the panel's notice says of a retry: when, which attempt, after what."""
    seconds = event.delay_ms / 1000
    of = f"/{event.max_attempts}" if event.max_attempts else ""
    why = f' after "{event.error_message}"' if event.error_message else ""
    return f"retrying in {_seconds(seconds)} s (attempt {event.attempt}{of}){why}"


def _seconds(seconds: float) -> str:
    return f"{seconds:.0f}" if seconds >= 10 else f"{seconds:.2g}"


async def _say_session(connection: AgentConnection) -> None:
    """One stderr line naming the transcript the run wrote (none for --no-session, or when nothing was
    written), and how to resume it."""
    state = await connection.get_state()
    if state.session_file is None or not await asyncio.to_thread(os.path.isfile, state.session_file):
        return
    print(f"prime: session {state.session_id}  (resume with: {resume_command(state.session_id)})", file=sys.stderr)


def resume_command(session_id: str) -> str:
    """`jupyter prime -r <the id's last 8 hex digits>`: its random part, unlike its time-ordered start."""
    return f"jupyter prime -r {session_id.replace('-', '')[-8:]}"
