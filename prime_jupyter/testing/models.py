"""Models that point at a scripted server, for tests that call providers directly."""

from __future__ import annotations

from prime_jupyter.ai.models import Api, Model, ModelCost
from prime_jupyter.testing.server_thread import ScriptedLLMServer

__all__ = ["APIS", "scripted_model"]

APIS: tuple[Api, ...] = ("anthropic-messages", "openai-completions", "openai-responses")


def scripted_model(server: ScriptedLLMServer, api: Api, *, reasoning: bool = True, images: bool = True) -> Model:
    """A model of the custom provider 'scripted' served by `server` over `api`."""
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
