"""How the server spends CPU and memory on streams: the provider SDKs' HTTP stack, and frozen start-up objects."""

from __future__ import annotations

import asyncio

import pytest
from kit.server import PrimeClient, text_of

from prime_jupyter.ai.providers import _http
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text


async def test_the_server_streams_on_aiohttp(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="streamed on aiohttp", chunks=3)]))
    frames = await prime.turn(session_id, "go")
    assert text_of(frames) == "streamed on aiohttp"
    assert _backends_in_use() == {"aiohttp"}


@pytest.mark.prime(http_backend="httpx")
async def test_the_http_stack_can_be_chosen(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="on httpx")]))
    assert text_of(await prime.turn(session_id, "go")) == "on httpx"
    assert _backends_in_use() == {"httpx"}


def _backends_in_use() -> set[str]:
    """The HTTP stacks of the provider clients open on this event loop (the server runs on it)."""
    return {backend for (_key, backend) in _http._clients.get(asyncio.get_running_loop(), {})}
