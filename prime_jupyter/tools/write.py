"""The `write` tool: create a file or replace its whole contents."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field, JsonValue

from prime_jupyter._atomic import atomic_write
from prime_jupyter.agent.tool import AgentTool, AgentToolResult, ToolUpdate, text_result
from prime_jupyter.ai.abort import AbortedError, AbortSignal
from prime_jupyter.tools.filepaths import display_path, os_error, refuse_notebook, resolve_path

__all__ = ["WriteParams", "make_write_tool"]

DESCRIPTION = """\
Write a file: create it, or replace its entire contents with `content`. Missing parent directories \
are created. The write is atomic (readers never see a half-written file) and an existing file keeps \
its permissions. To change part of an existing file, use `edit` instead: it is safer and shows a diff. \
The result says how many bytes were written."""


class WriteParams(BaseModel):
    path: str = Field(description="Path of the file to write, relative to the working directory or absolute.")
    content: str = Field(description="The complete new contents of the file (written as UTF-8).")


def make_write_tool(cwd: str, root: str | None = None) -> AgentTool[WriteParams]:
    """The `write` tool, resolving relative paths against `cwd`; with `root`, only inside it."""

    async def execute(
        tool_call_id: str, params: WriteParams, signal: AbortSignal, on_update: ToolUpdate
    ) -> AgentToolResult:
        if signal.aborted:  # checked once: a started write is short and is not interrupted halfway
            raise AbortedError(signal.reason or "aborted")
        path = resolve_path(params.path, cwd, root)
        refuse_notebook(path, "write")
        data = params.content.encode("utf-8", "replace")
        try:
            created = await asyncio.to_thread(atomic_write, path, data)
        except OSError as exc:
            raise os_error(exc, params.path, path) from exc
        shown = display_path(path, cwd)
        verb = "Created" if created else "Overwrote"
        details: dict[str, JsonValue] = {"path": str(path), "bytes": len(data), "created": created}
        return text_result(f"{verb} {shown}: wrote {len(data)} bytes.", details)

    return AgentTool(
        name="write",
        label="write",
        description=DESCRIPTION,
        parameters=WriteParams,
        execute=execute,
    )
