"""Setting up a provider without editing files: what the JupyterLab panel's provider form reads, tests and
saves (`server/chat/providers.py`; wire models in `protocol/providers.py`).

Everything lands where a user editing by hand would put it, so the terminal app and `%%prime` see the
same setup: the key in `auth.json` (mode 0600, `ModelRegistry.save_api_key`), a base URL or a local
server in `models.json` (`ModelRegistry.save_provider`), the default model in `settings.json`. Keys never
leave this module in a reply: a status says only whether one is set and where it comes from.

A test makes one small request with exactly the values of the form (nothing saved), and reports the
provider's error as a failed prompt would (`ai.errors.explain`): a wrong key, an unknown model or a
server that is not there reads the same here as in the chat.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from prime_jupyter._atomic import atomic_write
from prime_jupyter.ai.config_file import read_json_object
from prime_jupyter.ai.models import Model
from prime_jupyter.ai.registry import DEFAULT_MODELS, ENV_API_KEYS, ModelRegistry
from prime_jupyter.ai.stream import StreamOptions, stream
from prime_jupyter.ai.types import Context, UserMessage
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.common import ModelRef
from prime_jupyter.protocol.providers import ProviderKind, ProviderSetupRequest, ProviderStatus, ProviderTestResponse

__all__ = ["ProviderSetupError", "provider_statuses", "save_provider_setup", "test_provider_setup"]

LOCAL_PROVIDER = "local"
"""The name an `openai-compatible` provider gets in `models.json` when the form names none."""
TEST_PROMPT = "Reply with the single word: ok"
TEST_MAX_TOKENS = 64
TEST_TIMEOUT_S = 30.0
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")
_KINDS: dict[str, ProviderKind] = {"anthropic": "anthropic", "openai": "openai"}


class ProviderSetupError(PrimeError):
    """The form's values cannot be used; the message says which field and what to write instead."""


def provider_statuses(home: Path) -> list[ProviderStatus]:
    """Every provider the registry knows, with where its key comes from (never the key)."""
    registry = ModelRegistry.load(home)
    statuses: list[ProviderStatus] = []
    for provider in registry.providers():
        models = [m for m in registry.models if m.provider == provider]
        hint = registry.key_hint(provider)
        env_var = ENV_API_KEYS.get(provider)
        statuses.append(
            ProviderStatus(
                provider=provider,
                kind=_KINDS.get(provider, "openai-compatible"),
                key_set=hint is not None and not hint.source.startswith("nowhere"),
                key_source=hint.source if hint is not None else None,
                key_from_environment=bool(env_var and os.environ.get(env_var)),
                base_url=registry.base_url(models[0]) if models else None,
                models=[m.id for m in models],
            )
        )
    return statuses


def save_provider_setup(home: Path, request: ProviderSetupRequest) -> ModelRef:
    """Store the form's key, base URL, local server and default model; returns the model it set up."""
    name, base_url, model_id, key = _checked(request)
    registry = ModelRegistry.load(home)
    if request.kind == "openai-compatible":
        registry.save_provider(name, _local_entry(registry, name, base_url or "", model_id))
    elif base_url:
        registry.save_provider(name, {"baseUrl": base_url})
    elif _only_moves_builtins(registry, name):
        registry.save_provider(name, None)  # back to the provider's own URL
    if key:
        registry.save_api_key(name, key)
    if request.make_default:
        _save_default(home, name, model_id)
    return ModelRef(provider=name, id=model_id)


async def test_provider_setup(home: Path, request: ProviderSetupRequest) -> ProviderTestResponse:
    """One small request with the form's values (a key left empty: the stored one); nothing is saved."""
    name, base_url, model_id, key = _checked(request)
    registry = ModelRegistry.load(home)
    model = _model(registry, request.kind, name, model_id, base_url)
    ref = ModelRef(provider=name, id=model_id)
    if not key:
        if request.kind == "openai-compatible" and not registry.has_key(name):
            key = "none"  # a local server without auth
        elif not registry.has_key(name):
            return ProviderTestResponse(ok=False, model=ref, error=f"No API key: paste the key for {name}.")
        else:
            key = registry.api_key(name)
    options = StreamOptions(
        api_key=key,
        base_url=base_url or registry.base_url(model),
        max_tokens=TEST_MAX_TOKENS,
        timeout_s=TEST_TIMEOUT_S,
        hints=registry.hints(name),
    )
    answer = await stream(model, Context(messages=[UserMessage(content=TEST_PROMPT)]), options).result()
    if answer.stop_reason == "error":
        return ProviderTestResponse(ok=False, model=ref, error=answer.error_message or "the provider failed")
    return ProviderTestResponse(ok=True, model=ref, answer=answer.text().strip())


def _checked(request: ProviderSetupRequest) -> tuple[str, str | None, str, str | None]:
    """The provider's name, base URL, model id and key the request stands for, or `ProviderSetupError`."""
    if request.kind == "openai-compatible":
        name = (request.provider or LOCAL_PROVIDER).strip()
        if not _NAME.fullmatch(name) or name in _KINDS:
            raise ProviderSetupError(
                f"provider: '{name}' cannot name a server: use lower-case letters, digits, '.', '_' or '-' "
                "(not 'anthropic' or 'openai'), e.g. 'local' or 'ollama'"
            )
    else:
        name = request.kind
    base_url = _base_url(request.base_url)
    if request.kind == "openai-compatible" and base_url is None:
        raise ProviderSetupError("baseUrl: a server needs its URL, e.g. http://localhost:11434/v1")
    model_id = (request.model or "").strip() or DEFAULT_MODELS.get(name, "")
    if not model_id:
        raise ProviderSetupError("model: name the model the server runs, e.g. qwen3:8b")
    if any(ch.isspace() for ch in model_id):
        raise ProviderSetupError(f"model: '{model_id}' has spaces; a model id has none")
    key = (request.key or "").strip() or None
    if key is not None and any(ch.isspace() or not ch.isprintable() for ch in key):
        raise ProviderSetupError("key: a key has no spaces or line breaks; paste the key alone")
    return name, base_url, model_id, key


def _base_url(text: str | None) -> str | None:
    url = (text or "").strip().rstrip("/")
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProviderSetupError(f"baseUrl: '{url}' is not an http:// or https:// URL with a host")
    if parts.username or parts.password:
        raise ProviderSetupError("baseUrl: put the key in the key field, not in the URL")
    return url


def _local_entry(registry: ModelRegistry, name: str, base_url: str, model_id: str) -> dict[str, object]:
    """The `models.json` entry of a local server: the form's URL, its models so far plus this one."""
    current = read_json_object(registry.models_path).get("providers", {})
    entry = dict(current.get(name, {})) if isinstance(current, dict) else {}
    models = [m for m in entry.get("models", []) if isinstance(m, dict)]
    if not any(m.get("id") == model_id for m in models):
        models.append({"id": model_id})
    entry.update({"baseUrl": base_url, "api": entry.get("api", "openai-completions"), "models": models})
    return entry


def _only_moves_builtins(registry: ModelRegistry, name: str) -> bool:
    """Whether `models.json` has an entry for the built-in provider `name` that only moves its base URL."""
    providers = read_json_object(registry.models_path).get("providers")
    entry = providers.get(name) if isinstance(providers, dict) else None
    return isinstance(entry, dict) and not entry.get("models")


def _model(registry: ModelRegistry, kind: ProviderKind, name: str, model_id: str, base_url: str | None) -> Model:
    if kind == "openai-compatible":
        known = next((m for m in registry.models if (m.provider, m.id) == (name, model_id)), None)
        return known or Model(id=model_id, name=model_id, api="openai-completions", provider=name, base_url=base_url)
    return registry.resolve(name, model_id)


def _save_default(home: Path, provider: str, model_id: str) -> None:
    """`defaultProvider` and `defaultModel` in the agent's settings.json, every other setting kept."""
    path = home / "settings.json"
    settings = read_json_object(path)
    settings.update({"defaultProvider": provider, "defaultModel": f"{provider}/{model_id}"})
    atomic_write(path, (json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode())
