"""The user's own shell commands (`!cmd` in the terminal app), run the way the `bash` tool runs its own.

A command runs with `bash -c` in its own process group (`_process.py`), with the `bash` tool's output
budget: the tail of at most `DEFAULT_MAX_LINES` lines or `DEFAULT_MAX_BYTES` is kept, and the whole
output goes to a file when it is cut. An abort stops the whole group. The session keeps the result in
its transcript (`runtime.agent_session`). While it runs, `on_output` gets what it printed in chunks, a
few a second (`CHUNK_INTERVAL`), each at most `MAX_CHUNK_BYTES` long (the end of a larger burst, with the
count of bytes left out before it): enough to watch, bounded whatever the command prints.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.tools._output import OutputBuffer
from prime_jupyter.tools._process import run_in_group
from prime_jupyter.tools._throttle import Throttle

__all__ = ["CHUNK_INTERVAL", "MAX_CHUNK_BYTES", "CommandRun", "OutputChunk", "run_user_command"]

CHUNK_INTERVAL = 0.1
"""Seconds between two output chunks at the most: ten redraws a second for every front end watching."""
MAX_CHUNK_BYTES = 16 * 1024
"""The longest chunk: a flood shows as 160 KB a second of its end, plenty to watch it go by. The server
keeps the last 500 frames and events of a session for replay (`PrimeApp.ring_size`): with chunks this
size a flood holds at most 8 MB there, where chunks of the output budget (50 KB) would hold 25 MB. The end
event carries the whole tail the transcript keeps, so nothing is lost by cutting a chunk."""

OutputChunk = Callable[[str, int], None]
"""Gets `(text, skipped)`: the output since the last chunk, and how many bytes before it were left out."""


@dataclass(frozen=True, slots=True)
class CommandRun:
    """How a command ended: `exit_code` None when it was cancelled; `output` the tail kept."""

    output: str
    exit_code: int | None
    cancelled: bool
    truncated: bool
    full_output_path: str | None


async def run_user_command(
    command: str,
    cwd: str,
    signal: AbortSignal,
    on_output: OutputChunk | None = None,
    env: Mapping[str, str] | None = None,
) -> CommandRun:
    """Run `command` in `cwd` (in `env`, else this process's environment) until it exits or `signal` fires;
    raises ValueError for a command that cannot run (empty, no such directory, no bash)."""
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
        done = await run_in_group(command, workdir, None, signal, on_data, env)
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
    """The output not sent yet, as raw bytes (at most about twice `MAX_CHUNK_BYTES` of them: a flood is
    never decoded whole, only the end of each chunk), sent by a `Throttle`."""

    def __init__(self, on_output: OutputChunk) -> None:
        self._on_output = on_output
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = bytearray()
        self._skipped = 0
        self._throttle = Throttle(self._send, CHUNK_INTERVAL)

    def add(self, data: bytes) -> None:
        self._pending += data
        if len(self._pending) > 2 * MAX_CHUNK_BYTES:
            self._keep_end()
        self._throttle.poke()

    def close(self) -> None:
        self._throttle.close()
        self._send(final=True)

    def _keep_end(self) -> None:
        """Drop all but the last `MAX_CHUNK_BYTES` bytes, from a character's start on."""
        cut = len(self._pending) - MAX_CHUNK_BYTES
        while cut < len(self._pending) and self._pending[cut] & 0xC0 == 0x80:  # a UTF-8 continuation byte
            cut += 1
        del self._pending[:cut]
        self._skipped += cut
        self._decoder.reset()

    def _send(self, final: bool = False) -> None:
        if len(self._pending) > MAX_CHUNK_BYTES:
            self._keep_end()
        text = self._decoder.decode(bytes(self._pending), final=final)
        self._pending.clear()
        if text or self._skipped:
            skipped, self._skipped = self._skipped, 0
            self._on_output(text, skipped)
