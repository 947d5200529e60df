"""Paths as the model writes them, and file-system errors as the model should read them.

The model names files relative to the session's working directory, absolute, or with `~`. Error
messages repeat the path as the model wrote it and add where it resolved to, so a wrong working
directory is visible at once. In a server, the file tools act inside its root directory, as every route
does (`root`, symlinks resolved); in the terminal app and notebooks they act where the user is.
"""

from __future__ import annotations

import os
from pathlib import Path

from prime_jupyter.errors import ToolError

__all__ = ["display_path", "os_error", "refuse_notebook", "resolve_path"]


def resolve_path(path: str, cwd: str, root: str | None = None) -> Path:
    """`path` made absolute: `~` expanded, relative paths joined onto `cwd`. Not resolved through symlinks,
    except to check that it lies inside `root` when one is given (a `ToolError` when it does not)."""
    if not path.strip():
        raise ToolError("path is empty: give the file's path, relative to the working directory or absolute")
    expanded = Path(os.path.expanduser(path))
    if not expanded.is_absolute():
        expanded = Path(os.path.expanduser(cwd)) / expanded
    absolute = Path(os.path.abspath(expanded))
    if root is not None:
        _confine(absolute, path, root)
    return absolute


def _confine(path: Path, given: str, root: str) -> None:
    real, base = Path(os.path.realpath(path)), Path(os.path.realpath(root))
    if not real.is_relative_to(base):
        where = given if given == str(real) else f"{given} (resolved to {real})"
        raise ToolError(
            f"{where} is outside the server's root directory {base}: file tools act only inside it; name a file there"
        )


def refuse_notebook(path: Path, tool: str) -> None:
    """Notebooks are changed cell by cell through `notebook_edit`, whose guard never loses a user's edit;
    rewriting the file's JSON here would bypass it (and break it in one wrong character)."""
    if path.suffix.lower() == ".ipynb":
        raise ToolError(
            f"{path.name} is a Jupyter notebook: `{tool}` does not change notebooks. Use notebook_edit "
            "(insert, replace, delete or move cells by id; notebook_read shows the ids)"
        )


def display_path(path: Path, cwd: str) -> str:
    """`path` relative to `cwd` when it lies inside it, else absolute: what diffs and summaries show."""
    base = os.path.abspath(os.path.expanduser(cwd))
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


def os_error(exc: OSError, given: str, resolved: Path) -> ToolError:
    """A `ToolError` saying what went wrong with `given` in words the model can act on."""
    where = given if given == str(resolved) else f"{given} (resolved to {resolved})"
    if isinstance(exc, FileNotFoundError):
        return ToolError(f"File not found: {where}")
    if isinstance(exc, IsADirectoryError):
        return ToolError(f"{where} is a directory, not a file")
    if isinstance(exc, NotADirectoryError):
        return ToolError(f"A parent of {where} is a file, not a directory")
    if isinstance(exc, PermissionError):
        return ToolError(f"Permission denied: {where}")
    return ToolError(f"Cannot access {where}: {exc.strerror or exc}")
