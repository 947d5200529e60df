"""Skills, in the Agent Skills format: a folder holding `SKILL.md`, whose frontmatter has `name` and
`description`. Found in `<agent_dir>/skills/`, `~/.agents/skills/`, and `.prime/agent/skills/` and
`.agents/skills/` in every folder from the repository's root (the one holding `.git`) down to the working
directory. On a name clash the one nearest the working directory wins, and a diagnostic says which.

Only a skill's name, description and file go into the system prompt (`skills_prompt`); the model reads
the file when the task calls for it. `disable-model-invocation: true` keeps a skill out of the prompt; the
user can still invoke it as `/skill:<name> [args]`: the prompt sent is the skill's body, then the args."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from prime_jupyter.resources.frontmatter import FrontmatterError, read_frontmatter

__all__ = ["Skill", "find_skills", "skills_prompt"]

_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    path: Path
    body: str
    hidden: bool = False
    """`disable-model-invocation: true`: not in the system prompt, only `/skill:<name>`."""

    def invocation(self, arguments: str) -> str:
        """The prompt `/skill:<name> arguments` sends."""
        text = self.body.strip()
        return f"{text}\n\n{arguments.strip()}" if arguments.strip() else text


def skill_folders(agent_dir: Path, cwd: Path, home: Path) -> list[Path]:
    """Where skills are looked for, farthest first (a later one wins a clash)."""
    project: list[Path] = []
    resolved = cwd.resolve()
    for folder in (resolved, *resolved.parents):
        project.append(folder)
        if (folder / ".git").exists():
            break
    else:
        project = [resolved]  # not in a repository: the working directory only
    folders = [agent_dir / "skills", home / ".agents" / "skills"]
    for folder in reversed(project):
        folders += [folder / ".prime" / "agent" / "skills", folder / ".agents" / "skills"]
    return folders


def find_skills(agent_dir: Path, cwd: Path, home: Path | None = None) -> tuple[list[Skill], list[str]]:
    """The skills by name (sorted), and diagnostics (a broken `SKILL.md`, a missing field, a clash)."""
    found: dict[str, Skill] = {}
    diagnostics: list[str] = []
    seen: set[Path] = set()
    for folder in skill_folders(agent_dir, cwd, home or Path.home()):
        if not folder.is_dir() or folder.resolve() in seen:
            continue
        seen.add(folder.resolve())
        for path in sorted(folder.glob("*/SKILL.md")):
            skill = _read(path, diagnostics)
            if skill is None:
                continue
            if skill.name in found:
                diagnostics.append(
                    f"skill {skill.name}: {path} is used, not {found[skill.name].path} (the one nearer the"
                    " working directory wins)"
                )
            found[skill.name] = skill
    return sorted(found.values(), key=lambda s: s.name), diagnostics


def _read(path: Path, diagnostics: list[str]) -> Skill | None:
    try:
        fields, body = read_frontmatter(path)
    except FrontmatterError as exc:
        diagnostics.append(f"skill skipped: {exc}")
        return None
    name, description = fields.get("name"), fields.get("description")
    if not isinstance(name, str) or not _NAME.match(name):
        diagnostics.append(f"skill skipped: {path}: 'name' must be lower-case letters, digits and -, got {name!r}")
        return None
    if not isinstance(description, str) or not description.strip():
        diagnostics.append(f"skill skipped: {path}: 'description' is missing (the model chooses skills by it)")
        return None
    hidden = fields.get("disable-model-invocation") is True
    return Skill(name, " ".join(description.split()), path, body, hidden)


def skills_prompt(skills: list[Skill]) -> str:
    """The system prompt's section on the skills the model may use ("" when there are none)."""
    offered = [s for s in skills if not s.hidden]
    if not offered:
        return ""
    lines = [
        "# Skills",
        "",
        "Skills are instructions for particular tasks. When a task matches a skill's description, read its"
        " file with the read tool first and follow it (paths in it are relative to its folder).",
        "",
    ]
    lines += [f"- {s.name}: {s.description} ({s.path})" for s in offered]
    return "\n".join(lines)
