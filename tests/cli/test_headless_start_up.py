"""What a headless run does while it starts: no garbage collection until the first answer streams."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator

import pytest

from cli.headless import run_headless
from prime_jupyter.ai.types import AssistantMessage, TextContent, UserMessage
from prime_jupyter.connection.types import ConnectionEvent, SessionEventReceived
from prime_jupyter.protocol.events import AgentEnd, AgentStart, MessageStart
from prime_jupyter.protocol.snapshot import ConnectionState, PromptResult
from prime_jupyter.testing.fake_connection import FakeAgentConnection, async_return

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess


@pytest.fixture
def collector_paused() -> Iterator[None]:
    """As `main()` leaves it: the collector off while the run starts."""
    gc.disable()
    yield
    gc.enable()
    gc.unfreeze()


def scripted(emits: list[object], seen: list[tuple[str, bool]]) -> FakeAgentConnection:
    """A connection whose prompt emits `emits`, noting after each event whether the collector runs."""
    listeners: list[Callable[[ConnectionEvent], None]] = []

    async def prompt(*args: object) -> PromptResult:
        for event in emits:
            for listener in listeners:
                listener(SessionEventReceived(event))  # type: ignore[arg-type]
            seen.append((getattr(event, "type", ""), gc.isenabled()))
        return PromptResult()

    def subscribe(listener: Callable[[ConnectionEvent], None]) -> Callable[[], None]:
        listeners.append(listener)
        return lambda: None

    return FakeAgentConnection(
        subscribe=subscribe,
        prompt=prompt,
        wait_for_idle=async_return(None),
        get_state=async_return(ConnectionState(session_id="s1", cwd="/")),  # no file: nothing to resume
    )


@pytest.mark.asyncio
@pytest.mark.usefixtures("collector_paused")
async def test_the_collector_comes_back_when_the_answer_starts_not_with_the_prompt() -> None:
    answer = AssistantMessage(content=[TextContent(text="ok")], api="a", provider="p", model="m")
    emits = [AgentStart(), MessageStart(UserMessage(content="hi")), MessageStart(answer), AgentEnd([answer])]
    seen: list[tuple[str, bool]] = []
    code = await run_headless(scripted(emits, seen), "hi", [], json_mode=False)
    assert code == 0
    assert [enabled for _, enabled in seen] == [False, False, True, True]
    assert gc.get_freeze_count() > 0


@pytest.mark.asyncio
@pytest.mark.usefixtures("collector_paused")
async def test_a_run_that_ends_without_an_answer_brings_the_collector_back() -> None:
    seen: list[tuple[str, bool]] = []
    code = await run_headless(scripted([AgentStart(), AgentEnd([])], seen), "hi", [], json_mode=False)
    assert code == 1 and gc.isenabled()
