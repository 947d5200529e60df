"""The garbage-collector policy: each named moment does what its host relies on, and nobody else touches gc."""

from __future__ import annotations

import gc
import subprocess
import sys
import types
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from prime_jupyter import gc_policy

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def collector_back_on() -> Iterator[None]:
    """Each test starts with nothing pending (earlier tests' garbage is not frozen with it) and leaves the
    collector on and nothing of its own frozen."""
    gc.collect()
    yield
    gc.unfreeze()
    gc.enable()


def test_start_up_pauses_collection_until_start_up_is_done() -> None:
    gc_policy.start_up()
    assert not gc.isenabled()
    frozen = gc.get_freeze_count()
    assert gc_policy.start_up_done() is True
    assert gc.isenabled() and gc.get_freeze_count() >= frozen
    assert gc_policy.start_up_done() is False  # once


def test_freezing_happens_only_when_modules_were_imported() -> None:
    gc_policy.modules_loaded()
    assert gc_policy.modules_loaded() is False  # nothing new since
    name = f"_prime_gc_policy_probe_{id(object())}"
    sys.modules[name] = types.ModuleType(name)
    try:
        before = gc.get_freeze_count()
        assert gc_policy.modules_loaded() is True
        assert gc.get_freeze_count() >= before
    finally:
        del sys.modules[name]


def test_a_bulk_load_pauses_the_collector_and_freezes_what_it_built() -> None:
    with gc_policy.bulk_load():
        assert not gc.isenabled()
        built = [[i] for i in range(1000)]  # lists are always tracked (a dict of atoms is not)
        frozen = gc.get_freeze_count()
    assert gc.isenabled() and gc.get_freeze_count() >= frozen + len(built)
    gc.disable()
    with gc_policy.bulk_load():
        pass
    assert not gc.isenabled()  # what it found, it leaves


class _Node:
    cycle: _Node | None = None


def test_a_freeze_collects_first_so_garbage_is_freed_not_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression (issue 25): `gc.freeze()` ran without a collection, freezing the garbage of the moment
    with the living, never to be freed."""
    for moment in ("start_up_done", "modules_loaded", "bulk_load"):
        monkeypatch.setattr(gc_policy, "_modules_at_last_freeze", 0)  # as in a fresh process: modules are new
        gc_policy.start_up()  # the collector off, so nothing but the moment collects
        garbage = _Node()
        garbage.cycle = garbage  # only the collector frees a cycle
        freed = weakref.ref(garbage)
        del garbage
        if moment == "bulk_load":
            with gc_policy.bulk_load():
                pass
        elif moment == "modules_loaded":
            assert gc_policy.modules_loaded() is True
        else:
            assert gc_policy.start_up_done() is True
        assert freed() is None, moment
        gc.unfreeze()


def test_only_the_policy_module_touches_the_collector() -> None:
    found = subprocess.run(
        ["grep", "-rln", "--include=*.py", r"\bgc\.", "prime_jupyter", "cli"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    assert [p for p in found if not p.startswith("prime_jupyter/labextension/")] == ["prime_jupyter/gc_policy.py"]
