"""`JupyterProcess`, the `jupyter server` subprocess of the connection and attach tests."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from prime_jupyter.testing.jupyter_process import JupyterProcess

pytestmark = pytest.mark.e2e  # a `jupyter server` subprocess


@pytest.mark.parametrize("only_ours", [True, False])
def test_only_ours_leaves_the_collaboration_extension_off(tmp_path: Path, only_ours: bool) -> None:
    """An `only_ours` server is a quick one with the prime extension alone, even where the collab extra
    enables real-time collaboration for every server of the environment."""
    pytest.importorskip("jupyter_server_ydoc", reason="the collab extra (jupyter-collaboration) is not installed")
    (tmp_path / "root").mkdir()
    with JupyterProcess(tmp_path / "agent", tmp_path / "root", tmp_path / "runtime", only_ours=only_ours) as server:
        headers = {"Authorization": f"token {server.token}"}
        collaboration = httpx.get(f"{server.endpoint.url}api/collaboration/session/nb.ipynb", headers=headers)
        info = httpx.get(f"{server.endpoint.url}prime/api/info", headers=headers)
    assert info.status_code == 200
    assert collaboration.status_code == (404 if only_ours else 405)  # 405: the route is there, for PUT
    # its state is the server's own, not the user's data folder's
    assert (tmp_path / "runtime" / "file_id_manager.db").exists() == (not only_ours)
