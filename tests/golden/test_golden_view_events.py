"""`ViewFold` on the golden scenarios' session events: the same view as folding the frames the mapper made
of them (and so the expected view the panel's fold gives), and, resumed from a snapshot taken between
any two events, the same conversation at the end as having watched from the start."""

from __future__ import annotations

import dataclasses
import json

import pytest
from golden_hydrations import Recorder
from golden_views import view_path
from kit.golden import SCENARIOS, SESSION_ID, golden_path, map_scenario, new_mapper

from prime_jupyter.ai.types import Usage
from prime_jupyter.protocol.events import SessionEvent
from prime_jupyter.protocol.view import ViewFold, ViewState, apply_frames, empty_state
from prime_jupyter.protocol.view.canonical import to_json


def events_of(name: str) -> list[SessionEvent]:
    """The scenario's events; the partial messages in them are as the scenario left them (a provider
    mutates its partial message), so fold them as they are emitted, not from this list."""
    seen: list[SessionEvent] = []
    SCENARIOS[name](seen.append)
    return seen


def fold_events(name: str) -> ViewState:
    fold = ViewFold(new_mapper())
    SCENARIOS[name](fold.apply_event)
    return fold.state


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_folding_the_events_equals_folding_the_frames_the_mapper_made(name: str) -> None:
    assert fold_events(name) == apply_frames(empty_state(SESSION_ID), map_scenario(name))


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_folding_the_events_gives_the_expected_view_of_the_golden_stream(name: str) -> None:
    expected = json.loads(view_path(golden_path(name)).read_text(encoding="utf-8"))
    assert to_json(fold_events(name)) == expected["final"]


def burst_mismatches(name: str, size: int) -> list[int]:
    """Fold the scenario's events one by one and, beside it, `size` at a time as they are emitted
    (`apply_events`, as the terminal app folds a burst); the events after which, a burst folded, the two
    views differ."""
    one_by_one, in_bursts = ViewFold(new_mapper()), ViewFold(new_mapper())
    burst: list[SessionEvent] = []
    mismatches: list[int] = []
    count = 0

    def sink(event: SessionEvent) -> None:
        nonlocal count
        count += 1
        one_by_one.apply_event(event)
        burst.append(event)
        if len(burst) == size:
            in_bursts.apply_events(burst)
            burst.clear()
            if in_bursts.state != one_by_one.state:
                mismatches.append(count)

    SCENARIOS[name](sink)
    in_bursts.apply_events(burst)
    if in_bursts.state != one_by_one.state:
        mismatches.append(count)
    return mismatches


@pytest.mark.parametrize("size", [2, 3, 7, 1000])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_folding_the_events_in_bursts_gives_the_same_views_as_one_by_one(name: str, size: int) -> None:
    """`apply_events` folds consecutive deltas of one part as one: no view may show it."""
    assert burst_mismatches(name, size) == []


def conversation(state: ViewState) -> dict[str, object]:
    """What must not depend on when a front end attached. Render keys and notices may, and so may a
    message's own usage: a hydration has none (`ChatMessage` carries no usage; the panel's neither). No
    total usage and a zero one mean the same (a hydration always carries the total)."""
    view = to_json(state if state.usage is not None else dataclasses.replace(state, usage=Usage()))
    messages = view["messages"]
    assert isinstance(messages, list)
    return {
        "messages": [
            {k: v for k, v in m.items() if k not in ("key", "usage")} for m in messages if isinstance(m, dict)
        ],
        **{key: view[key] for key in ("runId", "questions", "steering", "followUp", "usage", "name")},
    }


def resumed_at(name: str, cut: int) -> ViewState:
    """Record the scenario's first `cut` events, attach from the snapshot, then fold the rest."""
    recorder, fold = Recorder(), None
    count = 0

    def sink(event: SessionEvent) -> None:
        nonlocal count, fold
        if count == cut:
            fold = ViewFold.from_snapshot(recorder.snapshot(), context_window=lambda p, m: 200_000)
        count += 1
        if fold is None:
            recorder(event)
        else:
            fold.apply_event(event)

    SCENARIOS[name](sink)
    assert fold is not None
    return fold.state


def cuts(name: str) -> list[int]:
    """Every point between two events but the two between a tool's end and its result's `message_end`: an
    `AttachSnapshot` carries no live tools (unlike the panel's `LiveRun`), so a tool that finished but whose
    result is not in the transcript yet cannot be told from one that is still running."""
    events = events_of(name)
    finishing = {i + 1 for i, e in enumerate(events) if e.type == "tool_execution_end"}
    return [i for i in range(len(events)) if i not in finishing and i - 1 not in finishing]


CASES: list[tuple[str, int]] = [(name, cut) for name in SCENARIOS for cut in cuts(name)]


@pytest.mark.parametrize(("name", "cut"), CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_attaching_from_a_snapshot_between_any_two_events_ends_in_the_same_conversation(name: str, cut: int) -> None:
    assert conversation(resumed_at(name, cut)) == conversation(fold_events(name))
