"""The system prompt and the context files (`AGENTS.md` / `CLAUDE.md`) it carries.

Context files are read from the agent dir, then from every directory from the filesystem root down to
the cwd (root first); the first of AGENTS.md, AGENTS.MD, CLAUDE.md, CLAUDE.MD in a directory wins.
`SYSTEM.md` (project `.prime/agent/` first, then the agent dir) replaces the base prompt and
`APPEND_SYSTEM.md` extends it; `--system-prompt` / `--append-system-prompt` do the same from the CLI.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ContextFile", "PromptOptions", "build_system_prompt", "find_context_files"]

_CONTEXT_NAMES = ("AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")

BASE_PROMPT = """You are Prime, an AI agent working inside the user's Jupyter environment. You help with data \
analysis, code and notebooks by running code and reading its results, not by guessing.

Guidelines:
- Look before you change: inspect files, data and variables first.
- Run code to check your answers; report what the output shows.
- Keep answers short and concrete; show the key numbers, paths and code.
- When something fails, read the error, fix the cause, and try again."""

_PI_TOOLS = """Tools:
- read: read a file (text or image); use offset/limit for long files.
- write: create or overwrite a file.
- edit: replace exact text in a file; each oldText must match once.
- bash: run a shell command in the working directory."""


@dataclass(frozen=True, slots=True)
class ContextFile:
    path: Path
    content: str


@dataclass(frozen=True, slots=True)
class PromptOptions:
    cwd: Path
    agent_dir: Path
    tool_names: tuple[str, ...]
    tool_guidance: str = ""
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    context_files: bool = True
    skills: str = ""
    """The section on the skills the model may use (`resources.skills.skills_prompt`)."""


def find_context_files(cwd: Path, agent_dir: Path) -> list[ContextFile]:
    found: list[ContextFile] = []
    seen: set[Path] = set()
    resolved = cwd.resolve()
    for directory in [agent_dir, *reversed(resolved.parents), resolved]:
        for name in _CONTEXT_NAMES:
            candidate = directory / name
            if candidate.is_file():
                real = candidate.resolve()
                if real not in seen:
                    seen.add(real)
                    found.append(ContextFile(candidate, _read(candidate)))
                break
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _first_existing(*paths: Path) -> str | None:
    for path in paths:
        if path.is_file():
            return _read(path)
    return None


def build_system_prompt(options: PromptOptions, today: _dt.date | None = None) -> str:
    project = options.cwd / ".prime" / "agent"
    base = options.system_prompt or _first_existing(project / "SYSTEM.md", options.agent_dir / "SYSTEM.md")
    parts = [base or BASE_PROMPT]
    if options.tool_guidance:
        parts.append(options.tool_guidance)
    elif options.tool_names:
        parts.append(_PI_TOOLS)
    appended = _first_existing(project / "APPEND_SYSTEM.md", options.agent_dir / "APPEND_SYSTEM.md")
    for extra in (appended, options.append_system_prompt):
        if extra:
            parts.append(extra)
    if options.context_files:
        files = find_context_files(options.cwd, options.agent_dir)
        if files:
            sections = "\n\n".join(f"## {f.path}\n\n{f.content.strip()}" for f in files)
            parts.append(f"# Project Context\n\n{sections}")
    if options.skills:
        parts.append(options.skills)
    date = (today or _dt.date.today()).isoformat()
    parts.append(f"Current date: {date}\nCurrent working directory: {options.cwd}")
    return "\n\n".join(parts)
