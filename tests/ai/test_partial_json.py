"""Tool-call arguments while they stream (`ai.partial_json`, parsed by pydantic-core): what each piece
shows, and what the finished arguments are."""

from __future__ import annotations

import json
from itertools import pairwise

from prime_jupyter.ai.partial_json import PartialJson

ARGUMENTS = {"code": 'print("a\\"b")\nx = [1, 2]', "timeout": 30, "options": {"quiet": True, "tags": ["é", None]}}


def test_each_piece_shows_what_has_arrived_strings_as_far_as_they_got() -> None:
    text = json.dumps(ARGUMENTS)
    partial = PartialJson()
    seen = [partial.feed(ch) for ch in text]
    codes = [s["code"] for s in seen if "code" in s]
    assert codes[0] == "" and codes[-1] == ARGUMENTS["code"]
    assert all(ARGUMENTS["code"].startswith(code) for code in codes)  # never a wrong character on the way
    assert seen[-1] == ARGUMENTS and partial.final() == ARGUMENTS


def test_a_dangling_key_is_left_out_until_its_value_comes() -> None:
    partial = PartialJson()
    assert partial.feed('{"a": 1, "b"') == {"a": 1}
    assert partial.feed(": [true, ") == {"a": 1, "b": [True]}


def test_final_of_arguments_cut_short_or_not_an_object() -> None:
    cut = PartialJson()
    cut.feed('{"path": "data.csv", "limit": 10')
    assert cut.final() == {"path": "data.csv", "limit": 10}
    listed = PartialJson()
    listed.feed("[1, 2]")
    assert listed.final() == {}
    assert PartialJson().final() == {}


def test_long_arguments_are_parsed_every_few_kilobytes_and_end_whole() -> None:
    partial = PartialJson()
    text = json.dumps({"code": "x" * 40_000})
    shown = [len(partial.feed(text[i : i + 100]).get("code", "")) for i in range(0, len(text), 100)]
    changes = sum(1 for before, after in pairwise(shown) if before != after)
    assert len(shown) > 400 and changes <= 16_384 // 100 + 40_000 // 4096 + 2  # past 16 KB: every 4 KB
    assert partial.final() == {"code": "x" * 40_000}
