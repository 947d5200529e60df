"""The golden NDJSON chat streams still parse, and still equal what the mapper makes of their scenarios."""

from __future__ import annotations

import pytest
from kit.golden import SCENARIOS, golden_path, map_scenario

from prime_jupyter.protocol.frames import DoneFrame, StartFrame, parse_frame
from prime_jupyter.protocol.framing import NdjsonDecoder

REGENERATE = "PYTHONPATH=.:tests .venv/bin/python -m kit.golden"


def read_golden(name: str) -> list[object]:
    decoder = NdjsonDecoder()
    return [parse_frame(line) for line in decoder.feed(golden_path(name).read_bytes()) + decoder.close()]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_golden_stream_equals_a_fresh_mapping(name: str) -> None:
    assert read_golden(name) == map_scenario(name), f"mapping changed; if meant, regenerate: {REGENERATE}"


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_golden_stream_is_one_run_from_start_to_done(name: str) -> None:
    frames = read_golden(name)
    first, last = frames[0], frames[-1]
    assert isinstance(first, StartFrame) and isinstance(last, DoneFrame) and first.run_id == last.run_id


def test_golden_text_keeps_u2028_inside_a_frame() -> None:
    raw = golden_path("text_answer").read_bytes()
    assert "\u2028".encode() in raw and len(read_golden("text_answer")) == raw.count(b"\n")
