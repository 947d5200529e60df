"""How the server spends connections on streams: the providers' client keeps one per provider for its turns."""

from __future__ import annotations

from kit.server import PrimeClient, text_of

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text


async def test_the_server_streams_its_turns_over_one_kept_connection(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session()
    # the body's end comes a moment after the answer's last event: the next request must still wait for it
    first = ScriptedTurn(blocks=[Text(text="first turn", chunks=3)], last_chunk_delay_s=0.3)
    llm.enqueue(first, ScriptedTurn(blocks=[Text(text="second")]))
    assert text_of(await prime.turn(session_id, "go")) == "first turn"
    assert text_of(await prime.turn(session_id, "again")) == "second"
    assert [request.connection for request in llm.requests] == [1, 1]
