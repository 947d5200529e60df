"""Where a notebook lives, behind one small seam: load it with a version, save it only over that version.

`NotebookStore` has two implementations: `DiskNotebookStore` (the terminal app, `-p`, notebooks: the
file itself, its version the file's modification time, size and inode) and
`contents.ContentsNotebookStore` (the Jupyter server: its contents manager, the version the model's
`last_modified`). A save names the version it was based on; when the notebook changed since, it raises
`NotebookChangedError` and writes nothing, and the workspace reloads and re-applies (the cell guard then
decides whether the edit still holds).
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from pydantic import JsonValue

from prime_jupyter._atomic import atomic_write
from prime_jupyter.errors import ToolError
from prime_jupyter.notebooks.cells import Notebook

__all__ = [
    "DiskNotebookStore",
    "LoadedNotebook",
    "NotebookChangedError",
    "NotebookStore",
    "dump_notebook",
    "parse_notebook",
]


class NotebookChangedError(Exception):
    """The notebook changed since it was loaded: nothing was written."""


@dataclass
class LoadedNotebook:
    key: str
    """The notebook's identity in its store (an absolute path, or the server's API path)."""
    shown: str
    """The path as the model should read it in messages."""
    content: Notebook | None
    """None: there is no notebook at this path (yet)."""
    version: str | None
    kernel_path: str
    """The folder of the notebook, where its kernel runs (the server: an API path)."""
    live: bool = False
    """Open in a collaborative room: every save shows in the user's notebook at once and costs no file
    write, so a run saves a cell's outputs as they arrive (`collab.py`)."""


class NotebookStore(Protocol):
    def locate(self, path: str) -> tuple[str, str, str]:
        """The key, shown path and kernel folder of the notebook at `path` (it need not exist); raises
        `ToolError` for a path the store may not touch."""
        ...

    async def load(self, path: str) -> LoadedNotebook:
        """The notebook at `path` (as the model wrote it); `content` None when there is none. Raises
        `ToolError` for a path outside what the store may touch, a folder, or a file that is not a notebook."""
        ...

    async def save(self, loaded: LoadedNotebook, content: Notebook) -> LoadedNotebook:
        """Write `content` over `loaded` (created when `loaded.content` is None); raises
        `NotebookChangedError` when the notebook changed (or appeared, or went) since it was loaded."""
        ...

    async def write_outputs(self, path: str, cell_id: str, outputs: list[JsonValue], count: int | None) -> bool:
        """Set one code cell's outputs and execution count directly, where the store can without reading
        and writing the whole notebook (a collaborative room); False where it cannot, and the caller saves
        through `load` and `save`. Raises `ToolError` when the cell is gone."""
        ...

    async def show_running(self, loaded: LoadedNotebook, cell_id: str, running: bool) -> None:
        """Show whoever has the notebook open that the agent is running the cell (or no longer is), where
        they can see it (a collaborative room: Lab's `[*]`); nothing elsewhere. Contract: must not raise."""
        ...


def parse_notebook(text: str | bytes, shown: str) -> Notebook:
    """An nbformat 4 notebook from a file's text; a `ToolError` naming the file when it is not one."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as error:
        raise ToolError(
            f"{shown} is not a notebook: its contents are not valid JSON ({error}); it was left untouched"
        ) from error
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ToolError(f"{shown} is not a notebook (no `cells` list); it was left untouched")
    if data.get("nbformat") != 4:
        data = _upgraded(data, shown)
    for index, cell in enumerate(data["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
            raise ToolError(f"{shown}: cell {index} is not a valid notebook cell; the notebook was left untouched")
    return cast(Notebook, data)


def nbformat_api() -> Any:
    """The nbformat package (imported on first use; its functions are untyped)."""
    import nbformat

    return nbformat


def _upgraded(data: dict[str, JsonValue], shown: str) -> Notebook:
    api = nbformat_api()
    try:
        upgraded = api.convert(api.from_dict(data), 4)
    except Exception as error:
        raise ToolError(
            f"{shown} is an nbformat {data.get('nbformat')} notebook that cannot be read as version 4: {error}"
        ) from error
    return cast(Notebook, json.loads(json.dumps(upgraded)))


def dump_notebook(content: Notebook) -> str:
    """The file text Jupyter itself writes (nbformat's own formatting: one-space indent, sorted keys)."""
    api = nbformat_api()
    return str(api.writes(api.from_dict(content), version=4))


class DiskNotebookStore:
    """Notebooks as files, paths relative to `cwd` (or absolute, or with `~`)."""

    def __init__(self, cwd: str) -> None:
        self.cwd = os.path.abspath(os.path.expanduser(cwd))

    async def load(self, path: str) -> LoadedNotebook:
        return await asyncio.to_thread(self._load, path)

    async def save(self, loaded: LoadedNotebook, content: Notebook) -> LoadedNotebook:
        return await asyncio.to_thread(self._save, loaded, content)

    def locate(self, path: str) -> tuple[str, str, str]:
        full, shown = self._resolve(path)
        return str(full), shown, str(full.parent)

    async def write_outputs(self, path: str, cell_id: str, outputs: list[JsonValue], count: int | None) -> bool:
        return False  # a file is written whole

    async def show_running(self, loaded: LoadedNotebook, cell_id: str, running: bool) -> None:
        return None  # a file has no one watching it

    def _resolve(self, path: str) -> tuple[Path, str]:
        if not path.strip():
            raise ToolError("path is empty: give the notebook's path, e.g. analysis.ipynb")
        if not path.endswith(".ipynb"):
            raise ToolError(f"{path} is not a notebook path: notebook paths end in .ipynb")
        full = Path(os.path.abspath(os.path.join(self.cwd, os.path.expanduser(path))))
        try:
            shown = str(full.relative_to(self.cwd))
        except ValueError:
            shown = str(full)
        return full, shown

    def _load(self, path: str) -> LoadedNotebook:
        full, shown = self._resolve(path)
        try:
            data = full.read_bytes()
            version = _version(full)
        except FileNotFoundError:
            return LoadedNotebook(str(full), shown, None, None, str(full.parent))
        except IsADirectoryError as error:
            raise ToolError(f"{shown} is a folder, not a notebook") from error
        except OSError as error:
            raise ToolError(f"cannot read {shown}: {error.strerror or error}") from error
        return LoadedNotebook(str(full), shown, parse_notebook(data, shown), version, str(full.parent))

    def _save(self, loaded: LoadedNotebook, content: Notebook) -> LoadedNotebook:
        full = Path(loaded.key)
        try:
            current = _version(full)
        except FileNotFoundError:
            current = None
        if current != loaded.version:
            raise NotebookChangedError(loaded.shown)
        try:
            atomic_write(full, dump_notebook(content).encode("utf-8"))
            version = _version(full)
        except OSError as error:
            raise ToolError(f"cannot write {loaded.shown}: {error.strerror or error}") from error
        return LoadedNotebook(loaded.key, loaded.shown, content, version, loaded.kernel_path)


def _version(path: Path) -> str:
    info = path.stat()
    return f"{info.st_mtime_ns}:{info.st_size}:{info.st_ino}"
