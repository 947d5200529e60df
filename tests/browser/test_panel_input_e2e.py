"""What the panel does with what the user typed and picked (issue 17), end to end in Chromium against a real
`jupyter lab` with the scripted LLM server: a prompt that cannot start a run is kept (items 1), a steer taken
back by Escape (2), the model picker and the server's default (3), a broken `models.json` (4), and the
actions on an answer's code blocks (7). Each scenario of `e2e/input.mjs` saves screenshots to
`tests/browser/screenshots/`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit.browser import (
    NOTEBOOK_DRIVER,
    Lab,
    finish_scenario,
    run_scenario,
    start_lab,
    start_scenario,
    wait_for_file,
    write_agent_dir,
)

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

pytestmark = pytest.mark.timeout(300)

DRIVER = NOTEBOOK_DRIVER.with_name("input.mjs")
LONG_ANSWER = "A long answer: " + " ".join(f"word{i}" for i in range(300)) + "."
KEY_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")


def _models(body: object) -> str:
    return str(json.loads(json.dumps(body))["model"])


@pytest.mark.parametrize(
    ("default_model", "error", "way"),
    [
        ("anthropic/claude-sonnet-5-5", "no API key for provider 'anthropic': set ANTHROPIC_API_KEY", "edit"),
        ("antropic/claude-sonnet-5-5", "unknown provider 'antropic'", "retry"),
    ],
)
def test_a_prompt_that_cannot_start_a_run_is_kept_and_no_empty_session_is_left(
    llm: ScriptedLLMServer, turns: ScriptedLLMServer, tmp_path: Path, default_model: str, error: str, way: str
) -> None:
    lab = start_lab(
        tmp_path, write_agent_dir(tmp_path / "agent", llm.base_url), default_model=default_model, unset=KEY_VARIABLES
    )
    turns.enqueue(ScriptedTurn(blocks=[Text(text="Sales rose 4 % in May.")]))
    try:
        shot = f"20-unsent-{'no-key' if way == 'edit' else 'mistyped-default'}"
        params = {"prompt": "Summarise sales.csv", "shot": shot, "expect": "Sales rose 4 % in May.", "way": way}
        report = run_scenario(lab, "unsent", params, driver=DRIVER)
    finally:
        lab.stop()
    assert error in report["notice"] and "Or pick another model below" in report["notice"]
    assert report["notice"].startswith(f"The server's default model {default_model} cannot run: ")
    assert report["failed"] == {
        "text": "Summarise sales.csv",
        "marker": "Not sent",
        "buttons": ["Retry", "Edit"],
    }
    assert report["sessions"] == [], "a session was left behind by a prompt that never ran"
    assert report["edited"] == ("Summarise sales.csv" if way == "edit" else None)
    assert [(m["role"], m["text"]) for m in report["after"]] == [
        ("user", "Summarise sales.csv"),
        ("assistant", "Sales rose 4 % in May."),
    ]
    assert _models(turns.requests[-1].body) == "m1"


def test_escape_gives_a_queued_steer_back_and_marks_the_answer_stopped(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(ScriptedTurn(blocks=[Text(text=LONG_ANSWER, chunks=300)], chunk_delay_s=0.05))
    report = run_scenario(
        lab, "steer-escape", {"prompt": "Explain at length", "steer": "Use a bar chart"}, driver=DRIVER
    )
    assert report["composer"] == "Use a bar chart"
    assert report["marker"] == "Stopped"
    assert report["queued"] == [], "the server still holds the steer for the next run"
    assert report["users"] == ["Explain at length"]


def _two_model_agent(home: Path, llm_url: str) -> Path:
    write_agent_dir(home, llm_url)
    models = json.loads((home / "models.json").read_text())
    models["providers"]["scripted"]["models"].append({"id": "m2", "name": "Second model", "contextWindow": 100_000})
    (home / "models.json").write_text(json.dumps(models))
    return home


def test_new_sessions_take_the_servers_new_default_and_a_model_can_be_typed_in(
    llm: ScriptedLLMServer, turns: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = _two_model_agent(tmp_path / "agent", llm.base_url)
    lab = start_lab(tmp_path, agent, default_model="scripted/m1")
    turns.enqueue(*(ScriptedTurn(blocks=[Text(text=f"Answer {n}.")]) for n in (1, 2, 3)))
    marker, back = tmp_path / "first-session-made", tmp_path / "new-default"
    params = {
        "first": {"prompt": "First", "expect": "Answer 1."},
        "second": {"prompt": "Second", "expect": "Answer 2."},
        "typed": "scripted/m9-custom",
        "third": {"prompt": "Third", "expect": "Answer 3."},
        "marker": str(marker),
        "back": str(back),
    }
    driver = start_scenario(lab, "model", params, driver=DRIVER)
    try:
        wait_for_file(marker, driver)
        lab.stop()
        lab = start_lab(tmp_path, agent, port=lab.port, token=lab.token, default_model="scripted/m2")
        back.write_text("back")
        report = finish_scenario(lab, driver)
    finally:
        driver.kill()
        lab.stop()
    assert [_models(r.body) for r in turns.requests[-3:]] == ["m1", "m2", "m9-custom"]
    assert report["restored"]["selected"] == "Scripted model"  # the old session keeps its own model
    assert report["fresh"]["selected"] == "Default (scripted/m2)"
    assert report["fresh"]["last"] == "Other model…"
    assert report["afterPick"] == {"provider": "scripted", "id": "m9-custom"}  # picked in this browser: kept


def test_the_thinking_picker_shows_the_level_new_sessions_run_at(
    llm: ScriptedLLMServer, turns: ScriptedLLMServer, tmp_path: Path
) -> None:
    """Issue 31 item 3: the picker said "thinking: off" while every request of a new session carried medium
    effort (a reload then showed medium)."""
    agent = write_agent_dir(tmp_path / "agent", llm.base_url)
    models = json.loads((agent / "models.json").read_text())
    models["providers"]["scripted"]["models"][0].update(reasoning=True, maxTokens=64_000)
    (agent / "models.json").write_text(json.dumps(models))
    lab = start_lab(tmp_path, agent)
    turns.enqueue(ScriptedTurn(blocks=[Text(text="Thought it over.")]), ScriptedTurn(blocks=[Text(text="Harder.")]))
    params = {"prompt": "Think", "expect": "Thought it over.", "again": {"prompt": "Harder", "expect": "Harder."}}
    try:
        report = run_scenario(lab, "thinking", params, driver=DRIVER)
    finally:
        lab.stop()
    assert report["session"] == "medium"
    assert [report["before"], report["made"], report["after"]] == ["thinking: medium"] * 3
    budgets = [json.loads(json.dumps(r.body))["thinking"]["budget_tokens"] for r in turns.requests[-2:]]
    assert budgets == [8192, 16384]  # medium, then high picked on the server's default model
    assert report["picked"] == "thinking: high"


def test_a_refused_typed_in_model_puts_the_picker_back_on_what_runs(
    llm: ScriptedLLMServer, turns: ScriptedLLMServer, tmp_path: Path
) -> None:
    """Issue 31 item 7: the server refused a typed-in model (400) but the picker kept it, and new sessions
    went on asking for it."""
    lab = start_lab(tmp_path, write_agent_dir(tmp_path / "agent", llm.base_url))
    turns.enqueue(*(ScriptedTurn(blocks=[Text(text=f"Answer {n}.")]) for n in (1, 2, 3)))
    params = {
        "first": {"prompt": "First", "expect": "Answer 1."},
        "typed": "nosuch/m9",
        "second": {"prompt": "Second", "expect": "Answer 2."},
        "third": {"prompt": "Third", "expect": "Answer 3."},
    }
    try:
        report = run_scenario(lab, "refused-model", params, driver=DRIVER)
    finally:
        lab.stop()
    notice = report["refused"]["notice"]
    assert "Cannot use nosuch/m9: the session stays on scripted/m1" in notice and "unknown provider 'nosuch'" in notice
    assert report["refused"]["picker"]["selected"] == "Default (scripted/m1)"
    assert report["fresh"]["selected"] == "Default (scripted/m1)"
    assert [_models(r.body) for r in turns.requests[-3:]] == ["m1", "m1", "m1"]


def test_a_broken_models_json_shows_the_servers_error_and_the_file(llm: ScriptedLLMServer, tmp_path: Path) -> None:
    agent = write_agent_dir(tmp_path / "agent", llm.base_url)
    broken = {"providers": {"ollama": {"baseUrl": "http://127.0.0.1:9/v1", "api": "ollama", "models": [{"id": "x"}]}}}
    (agent / "models.json").write_text(json.dumps(broken))
    lab = start_lab(tmp_path, agent)
    try:
        report = run_scenario(lab, "broken-models", driver=DRIVER)
    finally:
        lab.stop()
    assert "providers.ollama.api: Input should be" in report["banner"]
    assert str(agent / "models.json") in report["banner"]
    assert report["picker"]["selected"] == "models.json is broken"


CODE = "total = 6 * 7\nprint(total)"
FAILING = "x = 1 / 0"
FIXED = "x = 1 / 1"


def test_code_blocks_copy_insert_run_and_a_fix_replaces_the_failing_cell(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(
        ScriptedTurn(blocks=[Text(text=f"Here you are:\n\n```python\n{CODE}\n```\n\nIt prints 42.")]),
        ScriptedTurn(blocks=[Text(text=f"You divided by zero. Divide by one instead:\n\n```python\n{FIXED}\n```\n")]),
    )
    params = {
        "prompt": "Compute six times seven",
        "expect": "It prints 42.",
        "code": CODE,
        "failing": FAILING,
        "fixed": FIXED,
        "explained": "You divided by zero.",
    }
    report = run_scenario(lab, "code-actions", params, driver=DRIVER, timeout=240)
    assert report["buttons"] == ["Copy", "Insert", "Run"]
    assert report["copied"] == CODE
    assert [c["source"] for c in report["inserted"]] == ["", CODE]
    assert [c["source"] for c in report["ran"]] == ["", CODE, CODE] and report["ran"][2]["output"] == "42"
    assert "-x = 1 / 0" in report["diff"] and "+x = 1 / 1" in report["diff"]
    assert report["afterReject"] == FAILING, "Reject changed the cell"
    assert [c["source"] for c in report["afterAccept"]] == ["", CODE, FIXED]
    assert report["explainSession"] != report["chatSession"], "the error was explained in the session that was open"
    assert report["askSession"] == report["explainSession"], "the notebook's session was not reused"
    assert report["askPrompt"].startswith("About this cell of `Untitled")
    named = [s for s in report["sessions"] if s["id"] == report["explainSession"]]
    assert named[0]["name"].startswith("Notebook Untitled")
    assert "ZeroDivisionError" in json.dumps(turns.requests[-1].body)
