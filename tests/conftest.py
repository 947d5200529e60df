"""Shared fixtures: the scripted provider server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from prime_jupyter.testing import ScriptedLLMServer

pytest_plugins = ("pytest_jupyter.jupyter_server",)


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server
