"""The `read` tool: a text file as numbered windows of lines, or an image the model can see."""

from __future__ import annotations

import asyncio
import base64
import stat
from pathlib import Path
from typing import BinaryIO

from pydantic import BaseModel, Field, JsonValue

from prime_jupyter.agent.tool import AgentTool, AgentToolResult, ToolUpdate, text_result
from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.types import ImageContent, TextContent
from prime_jupyter.errors import ToolError
from prime_jupyter.tools._scan import Window, scan_window
from prime_jupyter.tools._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_head,
)
from prime_jupyter.tools.filepaths import os_error, resolve_path

__all__ = ["MAX_IMAGE_BYTES", "ReadParams", "make_read_tool"]

# Providers reject larger images (Anthropic: 5 MB of base64); 3/4 of that is the file size that fits.
MAX_IMAGE_BYTES = 5 * 1024 * 1024 * 3 // 4
_SNIFF_BYTES = 8192

DESCRIPTION = f"""\
Read a file. Text files come back as text; images (PNG, JPEG, GIF, WebP) come back as an image you \
can see. Text output stops after {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB, whichever \
comes first; the last line of the output then tells you the `offset` to continue from. Use `offset` \
(1-based line number) and `limit` (number of lines) to read a particular part of a large file. \
Binary files other than images cannot be read."""


class ReadParams(BaseModel):
    path: str = Field(description="Path of the file to read, relative to the working directory or absolute.")
    offset: int | None = Field(default=None, ge=1, description="1-based line number to start reading at.")
    limit: int | None = Field(default=None, ge=1, description="Maximum number of lines to read.")


def make_read_tool(cwd: str, root: str | None = None) -> AgentTool[ReadParams]:
    """The `read` tool, resolving relative paths against `cwd`; with `root`, only inside it."""

    async def execute(
        tool_call_id: str, params: ReadParams, signal: AbortSignal, on_update: ToolUpdate
    ) -> AgentToolResult:
        path = resolve_path(params.path, cwd, root)
        return await signal.race(asyncio.to_thread(_read, path, params))

    return AgentTool(
        name="read",
        label="read",
        description=DESCRIPTION,
        parameters=ReadParams,
        execute=execute,
        execution_mode="parallel",
    )


def _read(path: Path, params: ReadParams) -> AgentToolResult:
    try:
        info = path.stat()  # before opening: opening a named pipe would block until someone writes
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        if not stat.S_ISREG(info.st_mode):
            raise ToolError(f"{params.path} is not a regular file (a device, pipe or socket)")
        with open(path, "rb") as handle:
            head = handle.read(_SNIFF_BYTES)
            mime = _image_mime(head)
            if mime is not None:
                return _read_image(handle, head, mime, info.st_size, params.path)
            if b"\0" in head:
                raise ToolError(
                    f"{params.path} is a binary file ({format_size(info.st_size)}); "
                    "read shows text files and images only"
                )
            handle.seek(0)
            return _read_text(handle, params)
    except OSError as exc:
        raise os_error(exc, params.path, path) from exc


def _image_mime(head: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF or WebP image, from its magic bytes."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _read_image(handle: BinaryIO, head: bytes, mime: str, size: int, given: str) -> AgentToolResult:
    if size > MAX_IMAGE_BYTES:
        raise ToolError(
            f"{given} is a {format_size(size)} image; images over {format_size(MAX_IMAGE_BYTES)} cannot be "
            "sent to the model. Make a smaller copy (fewer pixels or JPEG) and read that."
        )
    data = head + handle.read()
    note = TextContent(text=f"Read image file {given} [{mime}, {format_size(len(data))}]")
    image = ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime)
    return AgentToolResult(content=[note, image], details={"mimeType": mime, "bytes": len(data)})


def _read_text(handle: BinaryIO, params: ReadParams) -> AgentToolResult:
    start = params.offset or 1
    want = min(params.limit or DEFAULT_MAX_LINES, DEFAULT_MAX_LINES)
    window = scan_window(handle, start, want, DEFAULT_MAX_BYTES)
    if window.total_lines == 0 and start == 1:
        return text_result(f"[{params.path} is empty]")
    if start > window.total_lines:
        raise ToolError(f"offset={start} is beyond the end of {params.path}, which has {window.total_lines} lines")
    cut = truncate_head("\n".join(window.lines), want, DEFAULT_MAX_BYTES)
    details: dict[str, JsonValue] = {"totalLines": window.total_lines}
    if cut.truncated:
        details["truncation"] = cut.to_json()
    return text_result(_text_with_hint(cut, window, start, params.path), details)


def _text_with_hint(cut: TruncationResult, window: Window, start: int, given: str) -> str:
    """The lines read, followed by a hint saying exactly how to read on when there is more."""
    if cut.first_line_exceeds_limit:
        return (
            f"[Line {start} of {given} is {format_size(window.first_line_bytes)}, over the "
            f"{format_size(DEFAULT_MAX_BYTES)} that read can show. View a slice of it another way "
            f"(for example: sed -n '{start}p' {given} | cut -c1-20000), or use offset={start + 1} to skip it.]"
        )
    end = start + cut.output_lines - 1
    if end >= window.total_lines:
        return cut.content
    limit_note = f" ({format_size(DEFAULT_MAX_BYTES)} limit)" if cut.truncated_by == "bytes" else ""
    hint = f"[Showing lines {start}-{end} of {window.total_lines}{limit_note}. Use offset={end + 1} to continue.]"
    return f"{cut.content}\n\n{hint}"
