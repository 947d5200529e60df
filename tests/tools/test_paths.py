"""Resolving the model's paths and wording file-system errors (the permission case cannot be provoked as root)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prime_jupyter.errors import ToolError
from prime_jupyter.tools._paths import display_path, os_error, resolve_path


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
