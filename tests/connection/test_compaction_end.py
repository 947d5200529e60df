"""Issue 31 item 5: an attached terminal stayed at "Compacting the context (threshold)…" after a compaction
failed. The end reached in-process listeners, but over the connection it was dropped (the wire leaves
`summary: null` out and the decoder required it). Every connection delivers the end, failure included."""

from __future__ import annotations

import asyncio

import pytest

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.types import ConnectionEvent, SessionEventReceived
from prime_jupyter.protocol.events import CompactionEnd, CompactionStart

pytestmark = pytest.mark.asyncio


async def test_a_failed_compaction_ends_for_every_client(connection: AgentConnection) -> None:
    seen: list[object] = []
    ended = asyncio.Event()

    def on_event(event: ConnectionEvent) -> None:
        if isinstance(event, SessionEventReceived) and isinstance(event.event, (CompactionStart, CompactionEnd)):
            seen.append(event.event)
            if isinstance(event.event, CompactionEnd):
                ended.set()

    connection.subscribe(on_event)
    result = await connection.compact()  # a new session: nothing to compact yet
    assert not result.compacted
    await asyncio.wait_for(ended.wait(), timeout=30)
    start, end = seen
    assert isinstance(start, CompactionStart) and isinstance(end, CompactionEnd)
    assert end.reason == "manual" and end.error_message == "nothing to compact yet" and end.summary is None
