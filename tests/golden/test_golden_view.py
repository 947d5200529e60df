"""The Python fold gives the expected view state of every golden stream, the file the panel's fold is
checked against too (`labextension/test/view.test.ts`); see `golden_views.py` for the files' form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden_views import FRAMES_DIR, GOLDEN_DIR, expected_view, read_frames, streams, view_path

REGENERATE = "PYTHONPATH=. .venv/bin/python tests/golden/golden_views.py"
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
