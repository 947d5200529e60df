"""Prompt templates: `*.md` files in `<agent_dir>/prompts/` and the project's `.prime/agent/prompts/` (the
project's wins on a name clash), each a command `/<name> args`. Frontmatter `description` and
`argument-hint` describe it; in the body `$1`..`$9` are the arguments, `$@` and `$ARGUMENTS` all of them,
`${@:N}` those from the Nth on and `${@:N:L}` L of them from the Nth. Arguments split as a shell does
(`"two words"` is one)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from prime_jupyter.resources.frontmatter import FrontmatterError, read_frontmatter

__all__ = ["PromptTemplate", "expand_arguments", "load_templates", "split_arguments"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_PLACEHOLDER = re.compile(r"\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@|\$(\d)")


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    name: str
    description: str
    argument_hint: str
    body: str
    path: Path

    def expand(self, arguments: str) -> str:
        return expand_arguments(self.body, split_arguments(arguments))


def load_templates(agent_dir: Path, cwd: Path) -> tuple[dict[str, PromptTemplate], list[str]]:
    """The templates by name, and diagnostics (a broken file, a name that is not a word, a clash)."""
    found: dict[str, PromptTemplate] = {}
    diagnostics: list[str] = []
    for folder in (agent_dir / "prompts", cwd / ".prime" / "agent" / "prompts"):
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
            name = path.stem
            if not _NAME.match(name):
                diagnostics.append(f"{path}: a template's file name is its command: use letters, digits, - and _")
                continue
            try:
                fields, body = read_frontmatter(path)
            except FrontmatterError as exc:
                diagnostics.append(str(exc))
                continue
            if name in found:
                diagnostics.append(f"/{name}: {path} is used, not {found[name].path} (the project's wins)")
            description = str(fields.get("description") or _first_line(body) or f"the prompt in {path.name}")
            found[name] = PromptTemplate(name, description, str(fields.get("argument-hint") or ""), body, path)
    return found, diagnostics


def _first_line(body: str) -> str:
    return next((line.strip()[:80] for line in body.splitlines() if line.strip()), "")


def split_arguments(text: str) -> list[str]:
    """The arguments as a shell splits them; an unbalanced quote splits on spaces instead."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def expand_arguments(body: str, arguments: list[str]) -> str:
    """`body` with its placeholders filled; a missing argument is empty."""

    def fill(match: re.Match[str]) -> str:
        start, length, position = match.group(1), match.group(2), match.group(3)
        if position is not None:
            index = int(position) - 1
            return arguments[index] if 0 <= index < len(arguments) else ""
        if start is not None:
            first = max(int(start) - 1, 0)
            chosen = arguments[first : first + int(length)] if length is not None else arguments[first:]
            return " ".join(chosen)
        return " ".join(arguments)

    return _PLACEHOLDER.sub(fill, body)
