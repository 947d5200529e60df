"""Shared fixtures (the scripted provider server) and the `e2e` marker.

A test is end to end when it drives the product from outside through another process: a browser, a
terminal under tmux, a `jupyter prime` subprocess, a `jupyter server` subprocess. Those are marked
`e2e` here, by folder, by module (`pytestmark = pytest.mark.e2e`) or by the `jupyter` server they use,
so `python3 scripts/dev.py test -m "not e2e"` is the quick inner loop; the README's test command
still runs everything.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from prime_jupyter.testing import ScriptedLLMServer

pytest_plugins = ("pytest_jupyter.jupyter_server",)


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


TESTS = Path(__file__).resolve().parent
E2E_FOLDERS = {"browser"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        folder = Path(str(item.path)).relative_to(TESTS).parts[0]
        callspec = getattr(item, "callspec", None)
        remote = callspec is not None and callspec.params.get("connection") == "http"
        if folder in E2E_FOLDERS or "jupyter" in getattr(item, "fixturenames", ()) or remote:
            item.add_marker(pytest.mark.e2e)
