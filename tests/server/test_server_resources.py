"""How the server spends CPU and memory on streams: the provider SDKs' HTTP stack, and frozen start-up objects."""

from __future__ import annotations

import gc
import importlib
import sys

import pytest
from serverkit import PrimeClient, text_of

from prime_jupyter.ai.providers._http import http_backend
from prime_jupyter.server.gc_policy import freeze_after_imports
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text


async def test_the_server_streams_on_aiohttp(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="streamed on aiohttp", chunks=3)]))
    frames = await prime.turn(session_id, "go")
    assert text_of(frames) == "streamed on aiohttp"
    assert http_backend() == "aiohttp"


@pytest.mark.prime(http_backend="httpx")
async def test_the_http_stack_can_be_chosen(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="on httpx")]))
    assert text_of(await prime.turn(session_id, "go")) == "on httpx"
    assert http_backend() == "httpx"


def test_freezing_happens_only_when_modules_were_imported() -> None:
    freeze_after_imports()
    assert freeze_after_imports() is False  # nothing new since
    sys.modules.pop("colorsys", None)
    importlib.import_module("colorsys")
    before = gc.get_freeze_count()
    assert freeze_after_imports() is True
    assert gc.get_freeze_count() > before  # the new module's objects are frozen too
