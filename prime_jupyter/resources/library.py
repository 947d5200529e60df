"""The prompts a session's commands expand to: prompt templates (`/<name> args`) and skills
(`/skill:<name> args`), read once per session from the agent dir and the project (`resources.prompts`,
`resources.skills`). The expansion happens where every surface's prompt arrives (the runtime), so the
panel, the terminal app, `%%prime` and `jupyter prime -p "/review notes.py"` agree."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from prime_jupyter.resources.prompts import PromptTemplate, load_templates
from prime_jupyter.resources.skills import Skill, find_skills

__all__ = ["PromptCommand", "PromptLibrary"]

SKILL_PREFIX = "skill:"


@dataclass(frozen=True, slots=True)
class PromptCommand:
    """A command the library adds to the registry: `source` is `template` or `skill`."""

    name: str
    description: str
    arguments: str
    source: str


@dataclass
class PromptLibrary:
    templates: dict[str, PromptTemplate] = field(default_factory=dict)
    skills: list[Skill] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, agent_dir: Path, cwd: Path, home: Path | None = None) -> PromptLibrary:
        templates, template_problems = load_templates(agent_dir, cwd)
        skills, skill_problems = find_skills(agent_dir, cwd, home)
        return cls(templates, skills, [*template_problems, *skill_problems])

    def expand(self, text: str) -> str:
        """The prompt `text` stands for: a template's or a skill's, else `text` itself. `ValueError` for a
        `/skill:` naming no skill (listing those there are)."""
        stripped = text.strip()
        if not stripped.startswith("/"):
            return text
        word, _, arguments = stripped[1:].partition(" ")
        word, newline, more = word.partition("\n")
        arguments = f"{more}{newline}{arguments}" if newline else arguments
        if word.startswith(SKILL_PREFIX):
            name = word.removeprefix(SKILL_PREFIX)
            skill = next((s for s in self.skills if s.name == name), None)
            if skill is None:
                known = ", ".join(s.name for s in self.skills) or "none are installed"
                raise ValueError(f"no skill named {name!r}: the skills here are {known}")
            return skill.invocation(arguments)
        template = self.templates.get(word)
        return template.expand(arguments) if template is not None else text

    def commands(self) -> list[PromptCommand]:
        listed = [PromptCommand(t.name, t.description, t.argument_hint, "template") for t in self.templates.values()]
        listed += [PromptCommand(f"{SKILL_PREFIX}{s.name}", s.description, "[args]", "skill") for s in self.skills]
        return listed
