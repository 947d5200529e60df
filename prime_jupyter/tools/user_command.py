"""The user's own shell commands (`!cmd` in the terminal app), run the way the `bash` tool runs its own.

A command runs with `bash -c` in its own process group (`_process.py`), with the `bash` tool's output
budget: the tail of at most `DEFAULT_MAX_LINES` lines or `DEFAULT_MAX_BYTES` is kept, and the whole
output goes to a file when it is cut. An abort stops the whole group. The session keeps the result in
its transcript (`runtime.agent_session`).
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.tools._output import OutputBuffer
from prime_jupyter.tools._process import run_in_group

__all__ = ["CommandRun", "run_user_command"]


@dataclass(frozen=True, slots=True)
class CommandRun:
    """How a command ended: `exit_code` None when it was cancelled; `output` the tail kept."""

    output: str
    exit_code: int | None
    cancelled: bool
    truncated: bool
    full_output_path: str | None


async def run_user_command(command: str, cwd: str, signal: AbortSignal) -> CommandRun:
    """Run `command` in `cwd` until it exits or `signal` fires; raises ValueError for a command that cannot
    run (empty, no such directory, no bash)."""
    if not command.strip():
        raise ValueError("the command is empty: type it after the '!'")
    workdir = await asyncio.to_thread(os.path.expanduser, cwd)
    if not await asyncio.to_thread(os.path.isdir, workdir):
        raise ValueError(f"the session's directory does not exist: {workdir}")
    output = OutputBuffer(prefix="prime-shell-")
    try:
        done = await run_in_group(command, workdir, None, signal, output.append)
    except OSError as exc:
        raise ValueError(f"could not start bash: {exc}") from exc
    finally:
        output.finish()
    kept = output.snapshot()
    return CommandRun(
        output=kept.content.removesuffix("\n"),
        exit_code=done.exit_code if done.ended == "exited" else None,
        cancelled=done.ended != "exited",
        truncated=kept.truncated,
        full_output_path=output.full_output_path,
    )
