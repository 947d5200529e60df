"""Resolving the model's paths and wording file-system errors (the permission case cannot be provoked as root)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prime_jupyter.errors import ToolError
from prime_jupyter.tools.filepaths import display_path, os_error, resolve_path


def test_relative_path_joins_cwd_and_dots_collapse() -> None:
    assert resolve_path("src/../a.py", "/home/u/proj") == Path("/home/u/proj/a.py")


def test_absolute_path_ignores_cwd() -> None:
    assert resolve_path("/etc/hosts", "/home/u/proj") == Path("/etc/hosts")


def test_tilde_expands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/ada")
    assert resolve_path("~/notes.md", "/work") == Path("/home/ada/notes.md")


def test_blank_path_is_refused() -> None:
    with pytest.raises(ToolError, match="path is empty"):
        resolve_path("   ", "/work")


def test_display_path_is_relative_inside_cwd_and_absolute_outside() -> None:
    cwd = "/home/u/proj"
    shown = (display_path(Path("/home/u/proj/a/b.py"), cwd), display_path(Path("/etc/hosts"), cwd))
    assert shown == ("a/b.py", "/etc/hosts")


def test_permission_error_reads_as_permission_denied_with_the_resolved_path() -> None:
    error = os_error(PermissionError(13, "Permission denied"), "secret.txt", Path("/home/u/secret.txt"))
    assert str(error) == "Permission denied: secret.txt (resolved to /home/u/secret.txt)"


def test_other_os_errors_keep_their_reason() -> None:
    error = os_error(OSError(28, "No space left on device"), "/data/out.bin", Path("/data/out.bin"))
    assert str(error) == "Cannot access /data/out.bin: No space left on device"


def test_with_a_root_a_path_outside_it_is_refused_symlinks_included(tmp_path: Path) -> None:
    """Regression (issue 27, item 3): in a server session the file tools read and wrote outside its root."""
    root, away = tmp_path / "root", tmp_path / "away"
    (root / "work").mkdir(parents=True)
    away.mkdir()
    (root / "escape").symlink_to(away, target_is_directory=True)
    (root / "work" / "link.txt").symlink_to(away / "secret.txt")
    cwd = str(root / "work")
    for path in ("../../away/secret.txt", str(away / "new.txt"), "../escape/new.txt", "link.txt", "/etc/passwd"):
        with pytest.raises(ToolError, match="outside the server's root directory"):
            resolve_path(path, cwd, str(root))
    assert resolve_path("a/b.txt", cwd, str(root)) == root / "work" / "a" / "b.txt"
    assert resolve_path("../top.txt", cwd, str(root)) == root / "top.txt"
    assert resolve_path("../../away/x", cwd) == away / "x"  # no root: where the user is, as before


def test_a_root_reached_through_a_symlink_still_holds_its_files(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real", target_is_directory=True)
    assert resolve_path("f.txt", str(tmp_path / "alias"), str(tmp_path / "alias")) == tmp_path / "alias" / "f.txt"
    assert resolve_path("f.txt", str(tmp_path / "real"), str(tmp_path / "alias")) == tmp_path / "real" / "f.txt"
