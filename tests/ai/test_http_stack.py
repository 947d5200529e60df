"""The provider SDK clients: one per event loop and settings, on the HTTP stack chosen."""

from __future__ import annotations

import asyncio

import anthropic
import openai
import pytest

from prime_jupyter.ai.providers._http import check_backend, close_clients
from prime_jupyter.ai.providers._openai_common import client_for
from prime_jupyter.ai.providers.anthropic import _client
from prime_jupyter.ai.stream import StreamOptions


def test_an_unknown_backend_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="'auto', 'httpx' or 'aiohttp'"):
        check_backend("curl")
    assert check_backend("auto") == "aiohttp"  # installed with the SDKs' extra


def test_clients_are_shared_within_a_loop_and_not_across_loops() -> None:
    options = StreamOptions(api_key="k", base_url="http://127.0.0.1:9")

    async def two() -> tuple[object, object]:
        return _client(options), _client(options)

    first, again = asyncio.run(two())
    other, _ = asyncio.run(two())
    assert first is again and first is not other


def test_aiohttp_clients_are_made_and_closed_on_their_loop() -> None:
    options = StreamOptions(api_key="k", base_url="http://127.0.0.1:9", http_backend="aiohttp")

    async def make() -> tuple[anthropic.AsyncAnthropic, openai.AsyncOpenAI, bool]:
        clients = _client(options), client_for(options)
        await close_clients()
        return *clients, all(c.is_closed() for c in clients)

    claude, gpt, closed = asyncio.run(make())
    assert isinstance(claude._client, anthropic.DefaultAioHttpClient)
    assert isinstance(gpt._client, openai.DefaultAioHttpClient)
    assert closed
