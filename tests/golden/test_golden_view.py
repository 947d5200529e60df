"""The Python fold gives the expected view state of every golden stream and of a hydration taken mid-run
of every scenario: the files the panel's fold is checked against too (`labextension/test/view.test.ts`).
`golden_views.py` and `golden_hydrations.py` describe the files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden_hydrations import expected_hydration, hydration_path, previous_state
from golden_views import FRAMES_DIR, GOLDEN_DIR, expected_view, read_frames, streams, view_path
from kit.golden import SCENARIOS, golden_path

from prime_jupyter.protocol.requests import ChatSessionResponse
from prime_jupyter.protocol.view import apply_frames, from_session
from prime_jupyter.protocol.view.canonical import to_json

REGENERATE = "PYTHONPATH=.:tests .venv/bin/python tests/golden/golden_views.py"
REHYDRATE = "PYTHONPATH=.:tests .venv/bin/python tests/golden/golden_hydrations.py"
STREAMS = streams()


def test_every_golden_stream_has_an_expected_view_and_every_view_a_stream() -> None:
    views = sorted([*GOLDEN_DIR.glob("*.view.json"), *FRAMES_DIR.glob("*.view.json")])
    assert views == sorted(view_path(s) for s in STREAMS) and len(STREAMS) >= 7


@pytest.mark.parametrize("stream", STREAMS, ids=lambda s: s.name)
def test_the_python_fold_gives_the_expected_view_at_every_step_and_at_the_end(stream: Path) -> None:
    expected = json.loads(view_path(stream).read_text(encoding="utf-8"))
    actual = expected_view(stream, read_frames(stream))
    steps = actual["steps"]
    assert isinstance(steps, list) and len(steps) == len(expected["steps"]), "one step per frame"
    for step, wanted in zip(steps, expected["steps"], strict=True):
        where = f"after frame {wanted['after']} ({wanted['frame']})"
        assert step == wanted, f"{where}: fold changed; if meant, regenerate ({REGENERATE}) and run the panel's tests"
    assert actual["final"] == expected["final"]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_hydration_file_is_what_the_scenario_gives_now(name: str) -> None:
    expected = json.loads(hydration_path(name).read_text(encoding="utf-8"))
    assert expected_hydration(name) == expected, f"hydration changed; if meant, regenerate: {REHYDRATE}"


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_python_fold_of_a_hydration_and_the_frames_after_it_gives_the_expected_views(name: str) -> None:
    expected = json.loads(hydration_path(name).read_text(encoding="utf-8"))
    frames, cursor = read_frames(golden_path(name)), expected["cursor"]
    fresh = from_session(ChatSessionResponse.model_validate(expected["response"]))
    previous = previous_state(frames[: expected["previousCursor"]])
    resynced = from_session(ChatSessionResponse.model_validate(expected["response"]), previous)
    assert to_json(fresh) == expected["fresh"] and to_json(resynced) == expected["resynced"]
    assert to_json(apply_frames(fresh, frames[cursor:])) == expected["final"]
