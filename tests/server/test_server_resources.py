"""How the server spends connections on streams: the providers' transport keeps one per provider for its turns."""

from __future__ import annotations

import asyncio

from kit.server import PrimeClient, text_of

from prime_jupyter.ai.providers import _http
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text


async def test_the_server_streams_its_turns_over_one_kept_connection(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="first turn", chunks=3)]), ScriptedTurn(blocks=[Text(text="second")]))
    assert text_of(await prime.turn(session_id, "go")) == "first turn"
    kept = _kept()
    assert text_of(await prime.turn(session_id, "again")) == "second"
    assert len(kept) == 1 and _kept() == kept


def _kept() -> list[object]:
    """The providers' idle connections on this event loop (the server runs on it)."""
    pools = _http._pools.get(asyncio.get_running_loop(), {})
    return [connection for connections in pools.values() for connection in connections]
