"""Fixtures of the browser tests: one scripted LLM server and one `jupyter lab` for the whole module (a
lab takes seconds to start); each test queues the LLM turns its scenario needs and plays it in a fresh page.

Skipped (with the reason) when Chromium, node or playwright-core is missing; `python3 scripts/dev.py
test` installs all three, so the README's test command always runs them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kit.browser import Lab, browser_missing, start_lab, write_agent_dir

from prime_jupyter.testing import ScriptedLLMServer


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = browser_missing()
    if reason is None:
        return
    for item in items:
        if "tests/browser" in item.nodeid:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture(scope="module")
def lab(llm: ScriptedLLMServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    workdir: Path = tmp_path_factory.mktemp("lab")
    server = start_lab(workdir, write_agent_dir(workdir / "agent", llm.base_url))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def turns(llm: ScriptedLLMServer) -> Iterator[ScriptedLLMServer]:
    """The LLM server, checked to have served every turn a test queued (a leftover would feed the next test)."""
    assert llm.pending == 0, "a previous test left scripted turns unserved"
    yield llm
    assert llm.pending == 0, f"{llm.pending} scripted turn(s) were never requested"
