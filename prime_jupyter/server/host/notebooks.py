"""The notebook tools of the server's sessions: notebooks through the server's contents manager, run in
their own Jupyter sessions' kernels (the ones Lab shows), inside the server's root."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from prime_jupyter.notebooks.contents import ContentsNotebookStore
from prime_jupyter.notebooks.kernels import ServerNotebookKernels
from prime_jupyter.notebooks.workspace import NotebookWorkspace

__all__ = ["server_notebooks"]


def server_notebooks(serverapp: Any, *, root_dir: Path, kernel_name: str) -> Callable[[Path, float], NotebookWorkspace]:
    """What makes a session's notebook workspace, from the session's folder and its time limit per cell."""
    kernels = ServerNotebookKernels(serverapp.session_manager, serverapp.kernel_manager)

    def make(cwd: Path, timeout_s: float) -> NotebookWorkspace:
        store = ContentsNotebookStore(serverapp.contents_manager, root_dir=str(root_dir), cwd=str(cwd))
        return NotebookWorkspace(store, kernels, kernel_name=kernel_name, timeout_s=timeout_s)

    return make
