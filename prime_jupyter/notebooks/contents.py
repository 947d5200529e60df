"""Notebooks through the Jupyter server's contents manager, inside the server's root.

Paths the model writes are relative to the session's folder (or absolute); they become the contents
API's paths, relative to the server's root, and anything that resolves outside the root (`..`, an
absolute path elsewhere, a symlink pointing out) is refused like every other route refuses it. The
contents manager is the server's (`serverapp.contents_manager`, sync or async), passed in as an object:
whatever it does on save (checkpoints, hooks, a custom backend) happens for the agent's edits too.
"""

from __future__ import annotations

import inspect
import json
import os
from typing import Any

from pydantic import JsonValue

from prime_jupyter.errors import ToolError
from prime_jupyter.notebooks.cells import Notebook
from prime_jupyter.notebooks.store import LoadedNotebook, NotebookChangedError, nbformat_api, parse_notebook

__all__ = ["ContentsNotebookStore", "api_path"]


async def _call(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def api_path(path: str, *, root_dir: str, cwd: str) -> str:
    """`path` (as the model wrote it, relative to `cwd`) as a contents API path; `ToolError` outside the root."""
    if not path.strip():
        raise ToolError("path is empty: give the notebook's path, e.g. analysis.ipynb")
    if not path.endswith(".ipynb"):
        raise ToolError(f"{path} is not a notebook path: notebook paths end in .ipynb")
    root = os.path.realpath(root_dir)
    full = os.path.realpath(os.path.join(cwd, os.path.expanduser(path)))
    relative = os.path.relpath(full, root)
    if relative == os.curdir or relative.startswith(os.pardir + os.sep) or relative == os.pardir:
        raise ToolError(f"{path} is outside the Jupyter server's root folder, where the agent may not act")
    return relative.replace(os.sep, "/")


def _status(error: BaseException) -> int | None:
    status = getattr(error, "status_code", None)
    return status if isinstance(status, int) else None


class ContentsNotebookStore:
    """A `NotebookStore` over a Jupyter contents manager rooted at `root_dir`, paths relative to `cwd`."""

    def __init__(self, contents_manager: Any, *, root_dir: str, cwd: str) -> None:
        self._cm = contents_manager
        self.root_dir = os.path.realpath(root_dir)
        self.cwd = os.path.abspath(cwd)

    def locate(self, path: str) -> tuple[str, str, str]:
        key = api_path(path, root_dir=self.root_dir, cwd=self.cwd)
        return key, key, key.rpartition("/")[0]

    async def load(self, path: str) -> LoadedNotebook:
        key, _, kernel_path = self.locate(path)
        try:
            model = await _call(self._cm.get(key, content=True, type="notebook"))
        except Exception as error:
            status = _status(error)
            if status == 404:
                return LoadedNotebook(key, key, None, None, kernel_path)
            if status == 400:
                reason = getattr(error, "log_message", None) or str(error)
                raise ToolError(
                    f"{key} is not a notebook Jupyter can read ({reason}); it was left untouched"
                ) from error
            raise ToolError(f"cannot read {key}: {error}") from error
        content = parse_notebook(json.dumps(model.get("content")), key)
        return LoadedNotebook(key, key, content, _version_of(model), kernel_path)

    async def save(self, loaded: LoadedNotebook, content: Notebook) -> LoadedNotebook:
        current = await self._current_version(loaded.key)
        if current != loaded.version:
            raise NotebookChangedError(loaded.shown)
        model = {"type": "notebook", "format": "json", "content": _node(content)}
        try:
            saved = await _call(self._cm.save(model, loaded.key))
        except Exception as error:
            raise ToolError(f"cannot write {loaded.shown}: {getattr(error, 'log_message', None) or error}") from error
        return LoadedNotebook(loaded.key, loaded.shown, content, _version_of(saved), loaded.kernel_path)

    async def write_outputs(self, path: str, cell_id: str, outputs: list[JsonValue], count: int | None) -> bool:
        return False  # the contents manager saves whole notebooks

    async def show_running(self, loaded: LoadedNotebook, cell_id: str, running: bool) -> None:
        return None  # Lab shows a notebook's file as it was saved, not as it runs

    async def _current_version(self, key: str) -> str | None:
        try:
            model = await _call(self._cm.get(key, content=False, type="notebook"))
        except Exception as error:
            if _status(error) == 404:
                return None
            raise ToolError(f"cannot read {key}: {error}") from error
        return _version_of(model)


def _version_of(model: Any) -> str | None:
    stamp = model.get("last_modified") if isinstance(model, dict) else None
    return None if stamp is None else str(stamp)


def _node(content: Notebook) -> Any:
    return nbformat_api().from_dict(content)
