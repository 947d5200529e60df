"""The `bash` tool: run a shell command, stream its output, keep the end of it for the model."""

from __future__ import annotations

import asyncio
import os
import signal as signals
from collections.abc import Callable, Mapping

from pydantic import BaseModel, Field, JsonValue

from prime_jupyter.agent.tool import AgentTool, AgentToolResult, ToolUpdate, text_result
from prime_jupyter.ai.abort import AbortedError, AbortSignal
from prime_jupyter.ai.types import TextContent
from prime_jupyter.errors import ToolError
from prime_jupyter.tools._output import OutputBuffer
from prime_jupyter.tools._process import Completion, run_in_group
from prime_jupyter.tools._throttle import Throttle
from prime_jupyter.tools._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size

__all__ = ["UPDATE_INTERVAL", "BashParams", "make_bash_tool"]

UPDATE_INTERVAL = 0.05  # seconds: at most ~20 streamed updates a second

DESCRIPTION = f"""\
Run a bash command in the working directory and return its combined stdout and stderr. Each call \
starts a fresh `bash -c`: `cd`, variables and shell functions do not carry over to the next call. \
stdin is closed, so interactive prompts get end-of-file; pass flags such as `-y` instead. Output is \
cut to the last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB, whichever comes first; when \
it is cut, the full output is saved to a file whose path is given at the end, to search or read. A \
non-zero exit code makes the call an error that still shows the output. Set `timeout` (seconds) for \
anything that could hang; the command and every process it started are then killed. To leave a \
process running in the background, redirect its output: `server > server.log 2>&1 &` (it is stopped \
when this agent's process ends)."""


class BashParams(BaseModel):
    command: str = Field(description="The bash command (or script) to run.")
    timeout: float | None = Field(
        default=None, gt=0, description="Seconds after which the command is killed. Default: no limit."
    )


def make_bash_tool(cwd: str, environment: Callable[[], Mapping[str, str]] | None = None) -> AgentTool[BashParams]:
    """The `bash` tool, running commands in `cwd`, in the environment `environment` makes for each (None:
    this process's)."""
    workdir = os.path.expanduser(cwd)

    async def execute(
        tool_call_id: str, params: BashParams, signal: AbortSignal, on_update: ToolUpdate
    ) -> AgentToolResult:
        if not params.command.strip():
            raise ToolError("command is empty")
        if signal.aborted:
            raise AbortedError(signal.reason or "aborted")
        if not await asyncio.to_thread(os.path.isdir, workdir):
            raise ToolError(f"Working directory does not exist: {workdir}")
        output = OutputBuffer()
        updates = Throttle(lambda: on_update(_progress(output)), UPDATE_INTERVAL)

        def on_data(data: bytes) -> None:
            output.append(data)
            updates.poke()

        try:
            env = environment() if environment is not None else None
            done = await run_in_group(params.command, workdir, params.timeout, signal, on_data, env)
        except OSError as exc:
            raise ToolError(f"Could not start bash: {exc}") from exc
        finally:
            updates.close()
            output.finish()
        return _finish(output, done, params.timeout)

    return AgentTool(
        name="bash",
        label="bash",
        description=DESCRIPTION,
        parameters=BashParams,
        execute=execute,
    )


def _progress(output: OutputBuffer) -> AgentToolResult:
    """An update: all output so far, or its tail once it is over budget."""
    snap = output.snapshot()
    details: dict[str, JsonValue] = {"truncation": snap.to_json()} if snap.truncated else {}
    return AgentToolResult(content=[TextContent(text=snap.content)], details=details or None)


def _finish(output: OutputBuffer, done: Completion, timeout: float | None) -> AgentToolResult:
    text, details = _format(output)
    if done.ended == "timeout":
        raise ToolError(_with_status(text, f"Command timed out after {timeout:g} seconds"))
    if done.ended == "aborted":
        raise ToolError(_with_status(text, "Command aborted"))
    if done.exit_code > 0:
        raise ToolError(_with_status(text, f"Command exited with code {done.exit_code}"))
    if done.exit_code < 0:
        name = signals.Signals(-done.exit_code).name
        raise ToolError(_with_status(text, f"Command was killed by signal {name}"))
    return text_result(text or "(no output)", details)


def _format(output: OutputBuffer) -> tuple[str, JsonValue]:
    """The tail of the output, with a note naming the full-output file when it was cut."""
    snap = output.snapshot()
    if not snap.truncated:
        return snap.content.removesuffix("\n"), None
    first = snap.total_lines - snap.output_lines + 1
    where = f"Full output: {output.full_output_path}"
    if snap.last_line_partial:
        note = f"[Showing the last {format_size(snap.output_bytes)} of line {snap.total_lines}. {where}]"
    elif snap.truncated_by == "lines":
        note = f"[Showing lines {first}-{snap.total_lines} of {snap.total_lines}. {where}]"
    else:
        limit = format_size(DEFAULT_MAX_BYTES)
        note = f"[Showing lines {first}-{snap.total_lines} of {snap.total_lines} ({limit} limit). {where}]"
    details: dict[str, JsonValue] = {"truncation": snap.to_json(), "fullOutputPath": output.full_output_path}
    return f"{snap.content}\n\n{note}", details


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status
