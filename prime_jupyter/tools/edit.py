"""The `edit` tool: exact-text replacements in one file, all or none, answered with a unified diff.

Files keep their form: a CRLF file stays CRLF (matching is done on `"\\n"` text, endings restored on
write), a UTF-8 byte-order mark stays, and bytes that are not valid UTF-8 pass through untouched.
"""

from __future__ import annotations

import asyncio
import difflib
import stat
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from prime_jupyter._atomic import atomic_write
from prime_jupyter.agent.tool import AgentTool, AgentToolResult, ToolUpdate, text_result
from prime_jupyter.ai.abort import AbortedError, AbortSignal
from prime_jupyter.errors import ToolError
from prime_jupyter.tools._replace import Replacement, apply_replacements
from prime_jupyter.tools._truncate import format_size, truncate_head
from prime_jupyter.tools.filepaths import display_path, os_error, refuse_notebook, resolve_path

__all__ = ["EditParams", "TextEdit", "make_edit_tool"]

MAX_EDIT_BYTES = 32 * 1024 * 1024
_BOM = "\ufeff"

DESCRIPTION = """\
Edit a file by replacing exact text. Each entry of `edits` replaces one `oldText` with its `newText`. \
Every `oldText` must match the current file exactly (whitespace and indentation included) and occur \
exactly once: include enough surrounding lines to make it unique. All edits are matched against the \
file as it is before this call, must not overlap, and are applied together or not at all. Use several \
entries to change several places in one call. Line endings (CRLF) are kept. The result is a unified \
diff of the change."""


class TextEdit(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    old_text: str = Field(alias="oldText", description="Exact text to replace; must occur exactly once in the file.")
    new_text: str = Field(alias="newText", description="Text to put in its place.")


class EditParams(BaseModel):
    path: str = Field(description="Path of the file to edit, relative to the working directory or absolute.")
    edits: list[TextEdit] = Field(min_length=1, description="Replacements, each matched against the original file.")


@dataclass(frozen=True, slots=True)
class _Form:
    """How a file's text is dressed: byte-order mark and line endings, restored on write."""

    bom: bool
    crlf: bool

    def restore(self, text: str) -> str:
        text = text.replace("\n", "\r\n") if self.crlf else text
        return _BOM + text if self.bom else text


def make_edit_tool(cwd: str, root: str | None = None) -> AgentTool[EditParams]:
    """The `edit` tool, resolving relative paths against `cwd`; with `root`, only inside it."""

    async def execute(
        tool_call_id: str, params: EditParams, signal: AbortSignal, on_update: ToolUpdate
    ) -> AgentToolResult:
        if signal.aborted:  # checked once: a started edit is short and is not interrupted halfway
            raise AbortedError(signal.reason or "aborted")
        path = resolve_path(params.path, cwd, root)
        refuse_notebook(path, "edit")
        return await asyncio.to_thread(_edit, path, params, display_path(path, cwd))

    return AgentTool(
        name="edit",
        label="edit",
        description=DESCRIPTION,
        parameters=EditParams,
        execute=execute,
    )


def _edit(path: Path, params: EditParams, shown: str) -> AgentToolResult:
    try:
        original = _load(path, params.path)
        form, text = _undress(original)
        edits = [_normalise(edit, form, text) for edit in params.edits]
        updated = apply_replacements(text, edits, params.path)
        atomic_write(path, form.restore(updated).encode("utf-8", "surrogateescape"))
    except OSError as exc:
        raise os_error(exc, params.path, path) from exc
    diff, first_changed = _diff(text, updated, shown)
    return text_result(_diff_for_model(diff), {"diff": diff, "firstChangedLine": first_changed})


def _load(path: Path, given: str) -> str:
    """The file's text; bytes that are not UTF-8 survive as surrogate escapes."""
    info = path.stat()
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "Is a directory", str(path))
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"{given} is not a regular file (a device, pipe or socket)")
    size = info.st_size
    if size > MAX_EDIT_BYTES:
        raise ToolError(
            f"{given} is {format_size(size)}; edit handles files up to {format_size(MAX_EDIT_BYTES)}. "
            "Change it with a script (sed, python) instead."
        )
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        raise ToolError(f"{given} is a binary file; edit changes text files only")
    return data.decode("utf-8", "surrogateescape")


def _undress(raw: str) -> tuple[_Form, str]:
    """Strip the BOM and, in a file whose every line ends in CRLF, turn the endings into `"\\n"`."""
    bom = raw.startswith(_BOM)
    text = raw[1:] if bom else raw
    crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
    return _Form(bom, crlf), text.replace("\r\n", "\n") if crlf else text


def _normalise(edit: TextEdit, form: _Form, text: str) -> Replacement:
    # A file that mixes endings is matched as it is; otherwise the model's CRLFs become "\n" like the file's.
    if form.crlf or "\r\n" not in text:
        return Replacement(edit.old_text.replace("\r\n", "\n"), edit.new_text.replace("\r\n", "\n"))
    return Replacement(edit.old_text, edit.new_text)


def _diff(old: str, new: str, shown: str) -> tuple[str, int]:
    """A unified diff (`--- a/path`, `+++ b/path`) and the 1-based first changed line of the new text."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    name = shown.lstrip("/")
    lines = difflib.unified_diff(old_lines, new_lines, f"a/{name}", f"b/{name}", lineterm="")
    diff = "\n".join(lines).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    first = next(
        (i for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=False)) if a != b),
        min(len(old_lines), len(new_lines)),
    )
    return diff, first + 1


def _diff_for_model(diff: str) -> str:
    cut = truncate_head(diff)
    if not cut.truncated:
        return diff
    return (
        f"{cut.content}\n\n[Diff cut at {cut.output_lines} of {cut.total_lines} lines; the edit was applied in full.]"
    )
