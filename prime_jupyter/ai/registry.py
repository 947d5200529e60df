"""Where models and keys come from: built-ins, `models.json`, `auth.json` and the environment.

The agent dir is `~/.prime/agent` unless `PRIME_AGENT_DIR` moves it. `auth.json` maps a provider to its key
(`{"anthropic": {"type": "api_key", "key": "..."}}` or a bare string) and is written with mode 0600.
`models.json` declares custom providers in the seed system's format:
`{"providers": {"<name>": {"baseUrl", "api", "apiKey", "models": [{"id", "name"?, "reasoning"?, "input"?,
"contextWindow"?, "maxTokens"?, "cost"?}]}}}`. A custom provider's `apiKey` may name an environment
variable; its value is used when that variable is set. An entry named after a built-in provider
(`anthropic`, `openai`) with no `models` only moves that provider's built-in models to its `baseUrl` (a
proxy or gateway, as `ANTHROPIC_BASE_URL` does); with `models` it replaces them.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from prime_jupyter.ai.config_file import agent_dir, read_config, read_json_object
from prime_jupyter.ai.errors import KeyHint, ProviderHints, did_you_mean
from prime_jupyter.ai.models import (
    BUILTIN_MODELS,
    THINKING_LEVELS,
    Api,
    CloudPlatform,
    InputKind,
    Model,
    ModelCost,
    ThinkingLevel,
)
from prime_jupyter.errors import ConfigError, MissingApiKeyError, ModelNotAllowedError, ModelNotFoundError

__all__ = ["ENV_API_KEYS", "ModelRef", "ModelRegistry", "agent_dir", "parse_model_ref"]

log = logging.getLogger(__name__)

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""What a models.json `apiKey` naming an environment variable looks like."""
ENV_API_KEYS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
ENV_BASE_URLS = {"anthropic": "ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL"}
DEFAULT_MODELS = {"anthropic": "claude-sonnet-5-5", "openai": "gpt-5.4"}


class _Custom(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", defer_build=True)


class _CustomModel(_Custom):
    id: str
    name: str | None = None
    reasoning: bool = False
    input: tuple[InputKind, ...] = ("text",)
    context_window: int = 128_000
    max_tokens: int = 16_384
    cost: ModelCost = Field(default_factory=ModelCost)


class _CustomProvider(_Custom):
    base_url: str | None = None
    api: Api = "openai-completions"
    api_key: str | None = None
    cloud: CloudPlatform | None = None
    models: list[_CustomModel] = Field(default_factory=list)

    @model_validator(mode="after")
    def _reachable(self) -> _CustomProvider:
        if self.base_url is None and self.cloud is None:
            raise ValueError('a provider needs a "baseUrl" (or "cloud" for Bedrock, Vertex AI or Azure)')
        if self.cloud is not None:
            wanted = "openai-completions" if self.cloud.platform == "azure" else "anthropic-messages"
            if self.api != wanted:
                raise ValueError(f'a provider on {self.cloud.platform} speaks "api": "{wanted}"')
            if self.cloud.platform == "azure" and self.base_url is None:
                raise ValueError('Azure needs "baseUrl": the resource\'s endpoint, https://NAME.openai.azure.com')
        return self


class _ModelsFile(_Custom):
    providers: dict[str, _CustomProvider] = Field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ModelRef:
    """A parsed `provider/id[:thinking]` (provider may be empty when only an id was given)."""

    provider: str
    model_id: str
    thinking: ThinkingLevel | None = None


def parse_model_ref(text: str) -> ModelRef:
    """Parse `provider/id[:thinking]`, `id[:thinking]`; the thinking suffix must be a known level."""
    thinking: ThinkingLevel | None = None
    head, sep, tail = text.rpartition(":")
    if sep and tail in THINKING_LEVELS:
        thinking, text = _level(tail), head
    provider, slash, model_id = text.partition("/")
    if not slash:
        provider, model_id = "", text
    if not model_id:
        raise ModelNotFoundError(f"'{text}' is not a model: write provider/model-id, e.g. anthropic/claude-sonnet-5-5")
    return ModelRef(provider, model_id, thinking)


def _level(text: str) -> ThinkingLevel:
    for level in THINKING_LEVELS:
        if level == text:
            return level
    raise ConfigError(f"unknown thinking level '{text}': use one of {', '.join(THINKING_LEVELS)}")


@dataclass
class ModelRegistry:
    """Built-in models merged with the user's custom providers, plus key and base-URL lookup."""

    directory: Path
    models: list[Model] = field(default_factory=list)
    custom_keys: dict[str, str | None] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    allowed: tuple[str, ...] | None = None
    """The models a server allows (`c.PrimeApp.allowed_models`: `provider/id` patterns such as
    `anthropic/*`); None: all. The others are not listed and not resolved."""

    @classmethod
    def load(cls, directory: Path | None = None, allowed: Sequence[str] | None = None) -> ModelRegistry:
        registry = cls(directory or agent_dir(), list(BUILTIN_MODELS))
        registry._load_models_file()
        if allowed is not None:
            registry.allowed = tuple(allowed)
            registry.models = [m for m in registry.models if registry.permits(m.provider, m.id)]
        return registry

    def permits(self, provider: str, model_id: str) -> bool:
        """Whether the server's policy allows `provider/model_id`."""
        name = f"{provider}/{model_id}"
        return self.allowed is None or any(fnmatch.fnmatchcase(name, pattern) for pattern in self.allowed)

    def _not_allowed(self, provider: str, model_id: str) -> ModelNotAllowedError:
        allowed = ", ".join(self.allowed or ()) or "no model"
        return ModelNotAllowedError(
            f"model {provider}/{model_id} is not allowed on this server: its administrator allows {allowed}"
            " (c.PrimeApp.allowed_models); choose one of those"
        )

    @property
    def auth_path(self) -> Path:
        return self.directory / "auth.json"

    @property
    def models_path(self) -> Path:
        return self.directory / "models.json"

    def providers(self) -> list[str]:
        return sorted({m.provider for m in self.models})

    def resolve(self, provider: str, model_id: str) -> Model:
        """Find a model; an unknown id of a known provider gets conservative defaults and a warning;
        `ModelNotAllowedError` for one the server's policy forbids."""
        if provider and not self.permits(provider, model_id):
            raise self._not_allowed(provider, model_id)
        return self._resolve(provider, model_id)

    def _resolve(self, provider: str, model_id: str) -> Model:
        if not provider:
            matches = [m for m in self.models if m.id == model_id]
            if len(matches) == 1:
                return matches[0]
            known = ", ".join(self.providers())
            raise ModelNotFoundError(f"model '{model_id}' needs a provider: write provider/{model_id} ({known})")
        for model in self.models:
            if model.provider == provider and model.id == model_id:
                return model
        template = next((m for m in self.models if m.provider == provider), None)
        if template is None and self.allowed is not None and self.permits(provider, model_id):
            template = next((m for m in BUILTIN_MODELS if m.provider == provider), None)  # only its others hidden
        if template is None:
            raise ModelNotFoundError(
                f"unknown provider '{provider}': use one of {', '.join(self.providers())} "
                f"or declare it in {self.models_path}"
            )
        close = did_you_mean(model_id, tuple(m.id for m in self.models if m.provider == provider))
        hint = f" ({close})" if close else ""
        warning = f"model '{model_id}' is not known for provider '{provider}'{hint}; using conservative defaults"
        log.warning(warning)
        self.warnings.append(warning)
        return Model(
            id=model_id,
            name=model_id,
            api=template.api,
            provider=provider,
            base_url=template.base_url,
            cloud=template.cloud,
            reasoning=False,
            input=("text",),
            context_window=128_000,
            max_tokens=8_192,
        )

    def default_model(self) -> Model:
        """The first provider with a key configured, else Anthropic's default (which will ask for a key);
        under a server's policy, the first allowed model of those (or of all, keyed ones first)."""
        for provider, model_id in DEFAULT_MODELS.items():
            if self.has_key(provider) and self.permits(provider, model_id):
                return self.resolve(provider, model_id)
        for model in self.models:
            if model.provider in self.custom_keys:
                return model
        if self.allowed is not None:
            keyed = [m for m in self.models if self.has_key(m.provider)]
            if keyed or self.models:
                return (keyed or self.models)[0]
        return self.resolve("anthropic", DEFAULT_MODELS["anthropic"])

    def has_key(self, provider: str) -> bool:
        try:
            self.api_key(provider)
        except MissingApiKeyError:
            return False
        return True

    def api_key(self, provider: str) -> str:
        """The key for a provider: environment, then auth.json, then models.json. Never logged."""
        env_var = ENV_API_KEYS.get(provider)
        if env_var and os.environ.get(env_var):
            return os.environ[env_var]
        stored = self._auth().get(provider)
        if stored:
            return stored
        custom = self.custom_keys.get(provider)
        if custom:
            return os.environ.get(custom, custom)
        if provider in self.custom_keys:
            return "none"  # a local OpenAI-compatible server without auth (Ollama, vLLM, LM Studio)
        raise MissingApiKeyError(provider, env_var, str(self.auth_path))

    def key_hint(self, provider: str) -> KeyHint | None:
        """Where `api_key(provider)` takes the key from, and how a user changes it (never the key itself);
        None when there is no key (`api_key` raises then)."""
        env_var = ENV_API_KEYS.get(provider)
        if env_var and os.environ.get(env_var):
            return KeyHint(f"the environment variable {env_var}", f"set {env_var} to a valid key")
        if self._auth().get(provider):
            instead = f" (or set {env_var})" if env_var else ""
            return KeyHint(f'{self.auth_path} ("{provider}")', f"replace it there{instead}")
        if provider not in self.custom_keys:
            return None
        where = f"'{provider}' in {self.models_path}"
        custom = self.custom_keys[provider]
        if not custom:
            return KeyHint(f"nowhere ({where} has no apiKey)", f'add "apiKey" to {where}')
        if custom in os.environ:
            return KeyHint(f"the environment variable {custom} (the apiKey of {where})", f"set {custom} to a valid key")
        return KeyHint(f"the apiKey of {where}", "replace it there")

    def hints(self, provider: str) -> ProviderHints:
        """What a failed call's message can add (`errors.explain`): the key's origin, the known models."""
        try:
            key = self.key_hint(provider)
        except ConfigError:
            key = None
        return ProviderHints(key, tuple(m.id for m in self.models if m.provider == provider))

    def secrets(self) -> dict[str, str]:
        """Every key this registry would hand a provider, by where it comes from (`ANTHROPIC_API_KEY`,
        `auth.json: openai`, `models.json: <provider>`), so that tool output can be kept free of them.
        Values shorter than 8 characters (`none`, placeholders) are not secrets worth hiding."""
        found: dict[str, str] = {}
        for variable in ENV_API_KEYS.values():
            found[variable] = os.environ.get(variable, "")
        try:
            stored = self._auth()
        except ConfigError:
            stored = {}  # a broken auth.json is reported where a key is needed
        for provider, key in stored.items():
            found[f"auth.json: {provider}"] = key
        for provider, custom in self.custom_keys.items():
            if custom:
                found[f"models.json: {provider}"] = os.environ.get(custom, custom)
        return {where: value for where, value in found.items() if len(value) >= 8}

    def key_variables(self) -> set[str]:
        """The environment variables this registry takes keys from (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`,
        and those a models.json `apiKey` names), set or not: what a server keeps out of the agent's
        kernels and commands (`runtime.environment`)."""
        named = {custom for custom in self.custom_keys.values() if custom and _ENV_NAME.fullmatch(custom)}
        return set(ENV_API_KEYS.values()) | named

    def base_url(self, model: Model) -> str | None:
        if model.base_url:
            return model.base_url
        env_var = ENV_BASE_URLS.get(model.provider)
        return os.environ.get(env_var) if env_var else None

    def save_api_key(self, provider: str, key: str) -> None:
        """Store a key in auth.json, created with mode 0600 and replaced atomically."""
        data = self._auth_raw()
        data[provider] = {"type": "api_key", "key": key}
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.auth_path.with_suffix(".json.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2)
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.auth_path)

    def save_provider(self, name: str, provider: dict[str, object] | None) -> None:
        """Set (None: remove) the entry `name` of models.json's `providers`, keeping every other entry and key;
        atomic. This registry does not change: `load` again for the file's view."""
        data = read_json_object(self.models_path, 'a JSON object ({"providers": {...}})')
        providers = data.get("providers")
        if not isinstance(providers, dict):
            providers = data["providers"] = {}
        if provider is None:
            if providers.pop(name, None) is None:
                return
        else:
            _CustomProvider.model_validate(provider)  # what the file will hold must load
            providers[name] = provider
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.models_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, self.models_path)

    def _auth_raw(self) -> dict[str, object]:
        return read_json_object(self.auth_path, "a JSON object of provider -> key")

    def _auth(self) -> dict[str, str]:
        keys: dict[str, str] = {}
        for provider, value in self._auth_raw().items():
            if isinstance(value, str):
                keys[provider] = value
            elif isinstance(value, dict) and isinstance(value.get("key"), str):
                keys[provider] = value["key"]
        return keys

    def _load_models_file(self) -> None:
        text = read_config(self.models_path)
        if text is None:
            return
        try:
            parsed = _ModelsFile.model_validate_json(text)
        except ValidationError as exc:
            raise ConfigError(f"{self.models_path} is invalid: {_first_error(exc)}") from exc
        for name, provider in parsed.providers.items():
            if name in ENV_API_KEYS and not provider.models and provider.cloud is None:
                self.models = [
                    m.model_copy(update={"base_url": provider.base_url}) if m.provider == name else m
                    for m in self.models
                ]
                continue
            self.custom_keys[name] = provider.api_key
            self.models = [m for m in self.models if m.provider != name]
            self.models.extend(_custom_model(name, provider, m) for m in provider.models)


def _custom_model(provider_name: str, provider: _CustomProvider, model: _CustomModel) -> Model:
    return Model(
        id=model.id,
        name=model.name or model.id,
        api=provider.api,
        provider=provider_name,
        base_url=provider.base_url,
        cloud=provider.cloud,
        reasoning=model.reasoning,
        input=model.input,
        context_window=model.context_window,
        max_tokens=model.max_tokens,
        cost=model.cost,
    )


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    message = str(err["msg"]).removeprefix("Value error, ")  # our own validators' words, as written
    return f"{where}: {message}" if where else message
