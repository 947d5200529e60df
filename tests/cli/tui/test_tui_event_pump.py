"""The chat's event pump drops the session events a drawn snapshot already holds, and only those.

Over HTTP the connection's stream follows from its own attach, which comes before the chat's snapshot:
without this the events in between were folded twice (a `!cmd`'s output chunk shown twice)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from prime_jupyter.cli.tui.event_pump import EventPump

from prime_jupyter.connection.types import ConnectionEvent, SessionEventReceived, SessionReplaced
from prime_jupyter.protocol.events import SessionEvent, TurnStart
from prime_jupyter.protocol.snapshot import AttachSnapshot, ConnectionState


class _Chat:
    """What the chat does with the pump's output, recorded."""

    def __init__(self) -> None:
        self.folded: list[int | None] = []
        self.handled: list[str] = []
        self.seqs: dict[int, int | None] = {}

    def fold(self, events: Sequence[SessionEvent]) -> None:
        self.folded += [self.seqs[id(event)] for event in events]

    async def handle(self, item: ConnectionEvent) -> None:
        self.handled.append(item.type)

    async def draw(self) -> None:
        return None

    def event(self, seq: int | None) -> SessionEventReceived:
        event = TurnStart()
        self.seqs[id(event)] = seq
        return SessionEventReceived(event, seq)


def _replaced(cursor: int) -> SessionReplaced:
    state = ConnectionState.model_validate({"sessionId": "s2", "cwd": "/w", "thinkingLevel": "off"})
    return SessionReplaced(AttachSnapshot(state=state, cursor=cursor))


@pytest.mark.asyncio
async def test_events_the_snapshot_holds_are_dropped_and_a_replaced_session_moves_the_mark() -> None:
    chat = _Chat()
    pump = EventPump(chat.fold, chat.handle, chat.draw)
    for seq in (3, 4, 5, 6):  # came while the chat read its snapshot, as of 5
        pump.put(chat.event(seq))
    pump.skip_through(5)
    pump.put(chat.event(7))
    pump.put(chat.event(None))  # a connection that does not know the place (in process): always folded
    pump.put(_replaced(1))  # another session, whose log is at 1
    pump.put(chat.event(1))
    pump.put(chat.event(2))
    drain = asyncio.ensure_future(pump.drain())
    try:
        for _ in range(50):
            await asyncio.sleep(0)
        assert chat.folded == [6, 7, None, 2]
        assert chat.handled == ["session_replaced"]
    finally:
        drain.cancel()
