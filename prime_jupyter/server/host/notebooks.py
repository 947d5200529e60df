"""The notebook tools of the server's sessions: notebooks through the server's contents manager (or, while
the user has one open in a collaborative Lab, through its shared document), run in their own Jupyter
sessions' kernels (the ones Lab shows), inside the server's root."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from prime_jupyter.notebooks.collab import CollabNotebookStore, YDocRooms
from prime_jupyter.notebooks.contents import ContentsNotebookStore
from prime_jupyter.notebooks.kernels import ServerNotebookKernels
from prime_jupyter.notebooks.workspace import NotebookWorkspace

__all__ = ["server_notebooks", "ydoc_extension"]

YDOC_EXTENSION = "jupyter_server_ydoc"


def ydoc_extension(serverapp: Any) -> Any | None:
    """jupyter-collaboration's `YDocExtension` when this server loaded it (an `ExtensionApp` puts itself
    in the web app's settings under its name), else None. Asked on every notebook call: extensions load
    in any order, and this costs a dictionary lookup."""
    settings = getattr(getattr(serverapp, "web_app", None), "settings", None)
    found = settings.get(YDOC_EXTENSION) if isinstance(settings, dict) else None
    return found if callable(getattr(found, "get_document", None)) else None


def server_notebooks(serverapp: Any, *, root_dir: Path, kernel_name: str) -> Callable[[Path, float], NotebookWorkspace]:
    """What makes a session's notebook workspace, from the session's folder and its time limit per cell."""
    kernels = ServerNotebookKernels(serverapp.session_manager, serverapp.kernel_manager)
    rooms = YDocRooms(lambda: ydoc_extension(serverapp))

    def make(cwd: Path, timeout_s: float) -> NotebookWorkspace:
        contents = ContentsNotebookStore(serverapp.contents_manager, root_dir=str(root_dir), cwd=str(cwd))
        return NotebookWorkspace(
            CollabNotebookStore(contents, rooms), kernels, kernel_name=kernel_name, timeout_s=timeout_s
        )

    return make
