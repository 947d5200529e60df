"""Setting up a provider from the browser: the `chat/providers` routes (capability `provider-setup`).

| route | request | response |
|---|---|---|
| `GET chat/providers` | | `ProvidersResponse` |
| `POST chat/providers` | `ProviderSetupRequest` | `ProvidersResponse` (after saving) |
| `POST chat/providers/test` | `ProviderSetupRequest` | `ProviderTestResponse` (nothing saved) |

A key goes one way: the browser sends it, the server stores it in `auth.json` (mode 0600) and never
answers it back; `ProviderStatus` says only whether a key is set and where it comes from.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from prime_jupyter.protocol.common import ModelRef
from prime_jupyter.protocol.wire import WireModel

__all__ = ["ProviderKind", "ProviderSetupRequest", "ProviderStatus", "ProviderTestResponse", "ProvidersResponse"]

ProviderKind = Literal["anthropic", "openai", "openai-compatible"]
"""Anthropic's and OpenAI's own APIs, or a server speaking OpenAI's chat completions (Ollama, vLLM, LM
Studio, OpenRouter, a gateway)."""


class ProviderStatus(WireModel):
    provider: str
    kind: ProviderKind
    key_set: bool
    key_source: str | None = None
    """Where the key comes from, for people (`the environment variable ANTHROPIC_API_KEY`); never the key."""
    key_from_environment: bool = False
    """The environment's key wins over one saved here: saving another changes nothing until it is unset."""
    base_url: str | None = None
    models: list[str] = Field(default_factory=list)


class ProvidersResponse(WireModel):
    providers: list[ProviderStatus]
    default_model: ModelRef | None = None
    editable: bool = True
    """False when the administrator turned setup from the browser off (`c.PrimeApp.provider_setup`)."""
    agent_dir: str
    """Where the files are (`auth.json`, `models.json`, `settings.json`), for the form to name."""


class ProviderSetupRequest(WireModel):
    kind: ProviderKind
    provider: str | None = Field(default=None, max_length=32)
    """The name of an `openai-compatible` provider in `models.json` (default `local`); the others are named
    by their kind."""
    key: str | None = Field(default=None, max_length=4096)
    """The API key; None or empty keeps the one stored (or, for a local server, needs none)."""
    base_url: str | None = Field(default=None, max_length=2048)
    """None or empty: the provider's own URL (required for `openai-compatible`)."""
    model: str | None = Field(default=None, max_length=200)
    """The model to use (and, for `openai-compatible`, to declare); None: the provider's default."""
    make_default: bool = True
    """Save the model as the default of new sessions (`settings.json`)."""


class ProviderTestResponse(WireModel):
    ok: bool
    model: ModelRef
    answer: str | None = None
    """The model's words, when it answered."""
    error: str | None = None
    """The provider's error as the agent would report it, when it did not."""
