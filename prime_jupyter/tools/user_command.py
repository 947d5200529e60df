"""The user's own shell commands (`!cmd` in the terminal app), run the way the `bash` tool runs its own.

A command runs with `bash -c` in its own process group (`_process.py`), with the `bash` tool's output
budget: the tail of at most `DEFAULT_MAX_LINES` lines or `DEFAULT_MAX_BYTES` is kept, and the whole
output goes to a file when it is cut. An abort stops the whole group. The session keeps the result in
its transcript (`runtime.agent_session`). While it runs, `on_output` gets what it printed in chunks, a
few a second (`CHUNK_INTERVAL`), each at most `MAX_CHUNK_CHARS` long (the end of a larger burst, with the
count of characters left out before it): enough to watch, bounded whatever the command prints.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from collections.abc import Callable
from dataclasses import dataclass

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.tools._output import OutputBuffer
from prime_jupyter.tools._process import run_in_group
from prime_jupyter.tools._throttle import Throttle
from prime_jupyter.tools._truncate import DEFAULT_MAX_BYTES

__all__ = ["CHUNK_INTERVAL", "MAX_CHUNK_CHARS", "CommandRun", "OutputChunk", "run_user_command"]

CHUNK_INTERVAL = 0.1
"""Seconds between two output chunks at the most: ten redraws a second for every front end watching."""
MAX_CHUNK_CHARS = DEFAULT_MAX_BYTES
"""The longest chunk: more than a front end shows of one command (it keeps the output's tail too)."""

OutputChunk = Callable[[str, int], None]
"""Gets `(text, skipped)`: the output since the last chunk, and how many characters before it were left out."""


@dataclass(frozen=True, slots=True)
class CommandRun:
    """How a command ended: `exit_code` None when it was cancelled; `output` the tail kept."""

    output: str
    exit_code: int | None
    cancelled: bool
    truncated: bool
    full_output_path: str | None


async def run_user_command(
    command: str, cwd: str, signal: AbortSignal, on_output: OutputChunk | None = None
) -> CommandRun:
    """Run `command` in `cwd` until it exits or `signal` fires; raises ValueError for a command that cannot
    run (empty, no such directory, no bash)."""
    if not command.strip():
        raise ValueError("the command is empty: type it after the '!'")
    workdir = await asyncio.to_thread(os.path.expanduser, cwd)
    if not await asyncio.to_thread(os.path.isdir, workdir):
        raise ValueError(f"the session's directory does not exist: {workdir}")
    output = OutputBuffer(prefix="prime-shell-")
    chunks = _Chunks(on_output) if on_output is not None else None

    def on_data(data: bytes) -> None:
        output.append(data)
        if chunks is not None:
            chunks.add(data)

    try:
        done = await run_in_group(command, workdir, None, signal, on_data)
    except OSError as exc:
        raise ValueError(f"could not start bash: {exc}") from exc
    finally:
        output.finish()
        if chunks is not None:
            chunks.close()
    kept = output.snapshot()
    return CommandRun(
        output=kept.content.removesuffix("\n"),
        exit_code=done.exit_code if done.ended == "exited" else None,
        cancelled=done.ended != "exited",
        truncated=kept.truncated,
        full_output_path=output.full_output_path,
    )


class _Chunks:
    """The decoded output not sent yet, at most about twice `MAX_CHUNK_CHARS` of it, sent by a `Throttle`."""

    def __init__(self, on_output: OutputChunk) -> None:
        self._on_output = on_output
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending: list[str] = []
        self._size = 0
        self._skipped = 0
        self._throttle = Throttle(self._send, CHUNK_INTERVAL)

    def add(self, data: bytes) -> None:
        text = self._decoder.decode(data)
        if not text:
            return
        self._pending.append(text)
        self._size += len(text)
        if self._size > 2 * MAX_CHUNK_CHARS:
            self._keep_end()
        self._throttle.poke()

    def close(self) -> None:
        rest = self._decoder.decode(b"", final=True)
        if rest:
            self._pending.append(rest)
            self._size += len(rest)
        self._throttle.close()
        if self._pending or self._skipped:  # the final flush found nothing pending in the throttle
            self._send()

    def _keep_end(self) -> None:
        text = "".join(self._pending)
        self._skipped += max(0, len(text) - MAX_CHUNK_CHARS)
        text = text[-MAX_CHUNK_CHARS:]
        self._pending, self._size = [text], len(text)

    def _send(self) -> None:
        if not self._pending and not self._skipped:
            return
        if self._size > MAX_CHUNK_CHARS:
            self._keep_end()
        text, skipped = "".join(self._pending), self._skipped
        self._pending, self._size, self._skipped = [], 0, 0
        self._on_output(text, skipped)
