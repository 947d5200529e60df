"""Shared fixtures: the scripted provider server and models pointing at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from prime_jupyter.ai.models import Api, Model, ModelCost
from prime_jupyter.testing import ScriptedLLMServer

pytest_plugins = ("pytest_jupyter.jupyter_server",)

APIS: tuple[Api, ...] = ("anthropic-messages", "openai-completions", "openai-responses")


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


def scripted_model(server: ScriptedLLMServer, api: Api, *, reasoning: bool = True, images: bool = True) -> Model:
    """A model of the custom provider 'scripted' served by the scripted server."""
    base = server.base_url if api == "anthropic-messages" else server.base_url + "/v1"
    return Model(
        id="scripted-model",
        name="Scripted",
        api=api,
        provider="scripted",
        base_url=base,
        reasoning=reasoning,
        input=("text", "image") if images else ("text",),
        context_window=200_000,
        max_tokens=8192,
        cost=ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    )
