"""The git branch of a directory, as the footer shows it: read from `.git/HEAD`, no `git` process.

Walks up from the directory to the first `.git`: a folder (a checkout), or a file saying `gitdir: PATH`
(a worktree or a submodule, whose HEAD lives in that folder). `ref: refs/heads/NAME` is on branch NAME;
a bare commit id is a detached HEAD, shown by its first 7 characters. Blocking (a few `stat`s and one
small read): the chat calls it in a thread.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["git_branch"]

_HEADS = "ref: refs/heads/"


def git_branch(directory: Path) -> str | None:
    """`main`, `detached 1a2b3c4`, or None outside a git checkout (or when its HEAD cannot be read)."""
    git_dir = _git_dir(directory)
    if git_dir is None:
        return None
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if head.startswith(_HEADS):
        return head[len(_HEADS) :]
    if head.startswith("ref: "):
        return head[len("ref: ") :]
    return f"detached {head[:7]}" if head else None


def _git_dir(directory: Path) -> Path | None:
    for folder in (directory, *directory.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            try:
                line = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            if not line.startswith("gitdir:"):
                return None
            target = Path(line[len("gitdir:") :].strip())
            return target if target.is_absolute() else (folder / target).resolve()
    return None
