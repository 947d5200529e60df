"""The YAML frontmatter of a Markdown resource (a skill's `SKILL.md`, a prompt template): `---`, YAML,
`---`, then the body."""

from __future__ import annotations

from pathlib import Path

import yaml

__all__ = ["FrontmatterError", "read_frontmatter"]


class FrontmatterError(ValueError):
    """A file whose frontmatter cannot be read; says which file and why."""


def read_frontmatter(path: Path) -> tuple[dict[str, object], str]:
    """The frontmatter's fields and the body after it (no frontmatter: `{}` and the whole text)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FrontmatterError(f"{path}: cannot be read ({exc})") from exc
    if not text.startswith("---\n") and not text.startswith("---\r\n"):
        return {}, text
    head, sep, body = text[4:].partition("\n---")
    if not sep:
        raise FrontmatterError(f"{path}: the frontmatter opened by '---' is never closed by a '---' line")
    try:
        fields = yaml.safe_load(head)
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"{path}: the frontmatter is not valid YAML ({exc})") from exc
    if fields is None:
        fields = {}
    if not isinstance(fields, dict):
        raise FrontmatterError(f"{path}: the frontmatter is not a mapping of fields")
    return {str(k): v for k, v in fields.items()}, body.partition("\n")[2]
