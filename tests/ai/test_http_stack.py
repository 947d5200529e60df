"""The provider SDK clients: one per event loop and settings, on the HTTP stack chosen."""

from __future__ import annotations

import asyncio

import anthropic
import openai
import pytest

from prime_jupyter.ai.providers._http import close_clients, http_backend, set_http_backend
from prime_jupyter.ai.providers._openai_common import client_for
from prime_jupyter.ai.providers.anthropic import _client
from prime_jupyter.ai.stream import StreamOptions


def test_an_unknown_backend_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="'httpx' or 'aiohttp'"):
        set_http_backend("curl")  # type: ignore[arg-type]
    assert http_backend() == "httpx"


def test_clients_are_shared_within_a_loop_and_not_across_loops() -> None:
    options = StreamOptions(api_key="k", base_url="http://127.0.0.1:9")

    async def two() -> tuple[object, object]:
        return _client(options), _client(options)

    first, again = asyncio.run(two())
    other, _ = asyncio.run(two())
    assert first is again and first is not other


def test_aiohttp_clients_are_made_and_closed_on_their_loop() -> None:
    options = StreamOptions(api_key="k", base_url="http://127.0.0.1:9")

    async def make() -> tuple[anthropic.AsyncAnthropic, openai.AsyncOpenAI, bool]:
        clients = _client(options), client_for(options)
        await close_clients()
        return *clients, all(c.is_closed() for c in clients)

    set_http_backend("aiohttp")
    try:
        claude, gpt, closed = asyncio.run(make())
    finally:
        set_http_backend("httpx")
    assert isinstance(claude._client, anthropic.DefaultAioHttpClient)
    assert isinstance(gpt._client, openai.DefaultAioHttpClient)
    assert closed
