"""`@` in the editor: fuzzy file completion under the working directory, and attaching what was named.

A word `@path` naming a file when the prompt is sent attaches it the way `jupyter prime -p ... @path`
does (text inlined in a `<file>` block, an image as an image), through the same `assemble_prompt`.
The listing skips hidden folders and the usual heavy ones, and stops at `MAX_FILES`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from prime_jupyter.ai.types import ImageContent

from ..prompt_input import PromptError, assemble_prompt

__all__ = ["MAX_FILES", "Attached", "attach_files", "file_matches", "list_files", "token_at_end"]

MAX_FILES = 5000
_SKIP = {"node_modules", "__pycache__", ".git", ".venv", "venv", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
_MENTION = re.compile(r"(?<!\S)@(\S+)")


@dataclass
class Attached:
    """The prompt with its named files attached, or why one could not be."""

    text: str
    images: list[ImageContent] = field(default_factory=list)
    error: str | None = None


def list_files(root: Path) -> list[str]:
    """Files under `root`, relative, with `/` separators, shallow ones first."""
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP)
        base = Path(folder).relative_to(root)
        found.extend((base / name).as_posix() for name in sorted(files) if not name.startswith("."))
        if len(found) >= MAX_FILES:
            break
    return found[:MAX_FILES]


def token_at_end(text: str) -> str | None:
    """The `@...` word the text ends with (what is being typed), without the `@`."""
    match = re.search(r"(?:^|\s)@(\S*)$", text)
    return match.group(1) if match else None


def file_matches(files: list[str], query: str, limit: int = 10) -> list[str]:
    """Files whose path holds the query's characters in order; a match in the name, and shorter, first."""
    lowered = query.lower()

    def score(path: str) -> tuple[int, int, int] | None:
        name = path.rsplit("/", 1)[-1].lower()
        if lowered in name:
            return (0, name.index(lowered), len(path))
        at = 0
        for char in path.lower():
            if at < len(lowered) and char == lowered[at]:
                at += 1
        return (1, 0, len(path)) if at == len(lowered) else None

    scored = [(s, path) for path in files if (s := score(path)) is not None]
    return [path for _, path in sorted(scored)[:limit]]


def attach_files(text: str, cwd: Path) -> Attached:
    """`text` with every `@path` that names a file (relative to `cwd`) attached."""
    words = [f"@{name}" for name in _MENTION.findall(text) if (cwd / name).expanduser().is_file()]
    if not words:
        return Attached(text)
    try:
        files = assemble_prompt(words, None, cwd)
    except PromptError as exc:
        return Attached(text, error=str(exc))
    return Attached(f"{text}\n\n{files.text}", files.images)
