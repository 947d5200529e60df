"""The Jupyter server is a shared process (design.md D16): a run through the extension leaves its garbage
collector and allocator as they were, unless the administrator opts in (`c.PrimeApp.tune_process_memory`).

Regression (issue 25): after one run, 230,443 objects of the server were frozen out of the collector and
malloc's thresholds raised for every other extension in the process.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from kit.server import PrimeClient, text_of

from prime_jupyter import heap_policy
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


@pytest.fixture(autouse=True)
def nothing_frozen() -> Iterator[None]:
    """Each test starts with nothing frozen and leaves nothing frozen (the tests share this process)."""
    gc.unfreeze()
    yield
    gc.unfreeze()


async def run(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    """A session's first run, with a tool call: the bridge is made, the provider and tools imported."""
    session_id = await prime.new_session()
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo out"})]),
        ScriptedTurn(blocks=[Text(text="done")]),
    )
    assert text_of(await prime.turn(session_id, "go")) == "done"


def collector_state() -> tuple[bool, tuple[int, int, int], int]:
    return gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()


async def test_a_run_leaves_the_servers_collector_and_allocator_as_they_were(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    before, heap_before = collector_state(), heap_policy.applied()
    await run(prime, llm)
    assert collector_state() == before
    assert heap_policy.applied() == heap_before


@pytest.mark.prime(tune_process_memory=True)
async def test_an_administrator_may_let_it_freeze_long_lived_objects(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    enabled, threshold, frozen = collector_state()
    await run(prime, llm)
    assert gc.get_freeze_count() > frozen and (gc.isenabled(), gc.get_threshold()) == (enabled, threshold)
    assert heap_policy.applied()
