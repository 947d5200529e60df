"""A new user's first hour, inside JupyterLab alone (issue 31 item 11), end to end in headless Chromium
(`e2e/setup.mjs`): Lab starts with no provider anywhere (no key in the environment, an empty agent dir),
the panel offers its provider form, a wrong key's Test shows Anthropic's error, the right key's Test its
answer, Save stores the key (auth.json, 0600) and the base URL, and the first prompt is answered by the
provider just set up (the scripted server standing in for Anthropic). Screenshots:
`tests/browser/screenshots/6*-setup-*`.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from kit.browser import Lab, run_scenario, start_lab

from prime_jupyter.testing import HttpError, ScriptedLLMServer, ScriptedTurn, Text

pytestmark = pytest.mark.timeout(300)

SETUP = Path(__file__).parent / "e2e" / "setup.mjs"
KEY = "sk-ant-first-hour-0123456789abcdef"
WRONG = "sk-ant-mistyped-0000000000"
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Lab, Path]]:
    """Lab as a fresh machine has it: nothing in the agent dir, no key or default model anywhere."""
    workdir = tmp_path_factory.mktemp("fresh-lab")
    agent = workdir / "agent"
    agent.mkdir()
    lab = start_lab(workdir, agent, default_model="", unset=KEYS)
    try:
        yield lab, agent
    finally:
        lab.stop()


def test_a_new_user_sets_up_a_provider_in_the_panel_and_gets_a_first_answer(
    fresh: tuple[Lab, Path], turns: ScriptedLLMServer
) -> None:
    lab, agent = fresh
    turns.enqueue(ScriptedTurn(blocks=[], fault=HttpError(status=401, message="invalid x-api-key")))
    turns.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    turns.enqueue(ScriptedTurn(blocks=[Text(text="Hello from your new provider.")]))
    params = {"wrongKey": WRONG, "key": KEY, "baseUrl": turns.base_url, "prompt": "hello", "expect": "new provider"}
    report = run_scenario(lab, "setup", params, driver=SETUP)

    assert "No LLM provider is configured yet" in report["bannerBefore"] and report["kind"] == "anthropic"
    assert report["refused"]["state"] == "error" and "invalid x-api-key" in report["refused"]["text"]
    assert report["tested"] == {"state": "ok", "text": "anthropic/claude-sonnet-5-5 answered: “ok”. Save to use it."}
    assert report["saved"]["text"] == "Saved. New sessions use anthropic/claude-sonnet-5-5."
    assert report["keyField"] == "" and "a key is set" in report["keyPlaceholder"]
    assert report["answer"] == "Hello from your new provider." and report["keyInPage"] is False

    sent = [r.headers["authorization"] for r in turns.requests[-3:]]
    assert sent == [f"Bearer {WRONG}", f"Bearer {KEY}", f"Bearer {KEY}"]
    assert turns.requests[-1].body["model"] == "claude-sonnet-5-5"
    auth = agent / "auth.json"
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600 and json.loads(auth.read_text())["anthropic"]["key"] == KEY
    assert KEY not in lab.log.read_text(errors="replace")
