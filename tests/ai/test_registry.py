"""Where models and keys come from: built-ins, models.json, auth.json, the environment."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from prime_jupyter.ai.errors import KeyHint
from prime_jupyter.ai.models import anthropic_thinking_budget, clamp_thinking_level, supported_thinking_levels
from prime_jupyter.ai.registry import ModelRegistry, agent_dir, parse_model_ref
from prime_jupyter.errors import ConfigError, MissingApiKeyError, ModelNotFoundError


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "PRIME_AGENT_DIR"):
        monkeypatch.delenv(name, raising=False)


def test_agent_dir_moves_with_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert agent_dir() == Path.home() / ".prime" / "agent"
    monkeypatch.setenv("PRIME_AGENT_DIR", str(tmp_path / "x"))
    assert agent_dir() == tmp_path / "x"


def test_a_missing_key_names_the_variable_and_the_file(tmp_path: Path) -> None:
    registry = ModelRegistry.load(tmp_path)
    with pytest.raises(MissingApiKeyError) as err:
        registry.api_key("anthropic")
    assert "ANTHROPIC_API_KEY" in str(err.value) and str(tmp_path / "auth.json") in str(err.value)


def test_environment_wins_over_auth_json_which_is_private(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    registry = ModelRegistry.load(tmp_path)
    registry.save_api_key("openai", "from-file")
    assert stat.S_IMODE((tmp_path / "auth.json").stat().st_mode) == 0o600
    assert registry.api_key("openai") == "from-file"
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert registry.api_key("openai") == "from-env"
    assert registry.default_model().provider == "openai"


def test_base_url_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    registry = ModelRegistry.load(tmp_path)
    model = registry.resolve("anthropic", "claude-sonnet-5-5")
    assert registry.base_url(model) is None
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/proxy")
    assert registry.base_url(model) == "http://127.0.0.1:9/proxy"


def test_models_json_declares_custom_providers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = {
        "providers": {
            "ollama": {
                "baseUrl": "http://127.0.0.1:11434/v1",
                "api": "openai-completions",
                "models": [{"id": "qwen3:8b", "contextWindow": 32768, "input": ["text", "image"]}],
            },
            "gateway": {
                "baseUrl": "http://127.0.0.1:1/v1",
                "api": "openai-responses",
                "apiKey": "GATEWAY_KEY",
                "models": [{"id": "g1", "reasoning": True, "cost": {"input": 1, "output": 2}}],
            },
        }
    }
    (tmp_path / "models.json").write_text(json.dumps(config))
    registry = ModelRegistry.load(tmp_path)
    local = registry.resolve("ollama", "qwen3:8b")
    assert (local.api, local.context_window, local.accepts_images) == ("openai-completions", 32768, True)
    assert registry.api_key("ollama") == "none"  # a local server without auth needs no key
    assert registry.api_key("gateway") == "GATEWAY_KEY"  # the literal, while no such variable is set
    monkeypatch.setenv("GATEWAY_KEY", "secret")
    assert registry.api_key("gateway") == "secret"
    assert registry.resolve("gateway", "g1").cost.output == 2


def test_unknown_model_of_a_known_provider_gets_conservative_defaults(tmp_path: Path) -> None:
    registry = ModelRegistry.load(tmp_path)
    model = registry.resolve("anthropic", "claude-next-preview")
    assert (model.api, model.reasoning, model.input) == ("anthropic-messages", False, ("text",))
    assert registry.warnings and "claude-next-preview" in registry.warnings[0]
    with pytest.raises(ModelNotFoundError, match="unknown provider 'nope'"):
        registry.resolve("nope", "x")


def test_bad_models_json_says_where(tmp_path: Path) -> None:
    (tmp_path / "models.json").write_text('{"providers": {"x": {"api": "openai-completions"}}}')
    with pytest.raises(ConfigError, match=r'models\.json is invalid: providers\.x: a provider needs a "baseUrl"'):
        ModelRegistry.load(tmp_path)
    (tmp_path / "models.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"models\.json"):
        ModelRegistry.load(tmp_path)


def test_agent_dir_files_that_cannot_be_read_say_what_to_fix(tmp_path: Path) -> None:
    a_file = tmp_path / "agent"
    a_file.write_text("not a folder")
    with pytest.raises(ConfigError, match=r"agent/models\.json: .*agent is not a folder \(the agent dir is"):
        ModelRegistry.load(a_file)
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "models.json").mkdir()
    with pytest.raises(ConfigError, match=r"cannot read .*models\.json: Is a directory"):
        ModelRegistry.load(tmp_path / "home")
    (tmp_path / "home" / "models.json").rmdir()
    (tmp_path / "home" / "auth.json").write_bytes(b'{"anthropic": "caf\xe9"}')
    with pytest.raises(ConfigError, match=r"auth\.json is not UTF-8 text; fix or delete it"):
        ModelRegistry.load(tmp_path / "home").api_key("anthropic")


def test_model_refs_and_thinking_levels(tmp_path: Path) -> None:
    assert parse_model_ref("anthropic/claude-haiku-4-5:high") == parse_model_ref("anthropic/claude-haiku-4-5:high")
    ref = parse_model_ref("ollama/qwen3:8b")
    assert (ref.provider, ref.model_id, ref.thinking) == ("ollama", "qwen3:8b", None)
    ref = parse_model_ref("openai/gpt-5.4:xhigh")
    assert (ref.model_id, ref.thinking) == ("gpt-5.4", "xhigh")
    registry = ModelRegistry.load(tmp_path)
    haiku = registry.resolve("anthropic", "claude-haiku-4-5")
    assert supported_thinking_levels(haiku) == ["off", "minimal", "low", "medium", "high"]
    assert clamp_thinking_level(haiku, "xhigh") == "high"
    assert clamp_thinking_level(registry.resolve("openai", "gpt-4.1"), "high") == "off"
    budgets = [anthropic_thinking_budget(level, 64_000) for level in ("minimal", "low", "medium", "high")]
    assert [b[0] for b in budgets if b] == [1024, 2048, 8192, 16384]
    assert anthropic_thinking_budget("off", 64_000) is None


def test_the_key_hint_follows_the_key_to_where_it_came_from(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Whichever source `api_key` takes the key from is the one named (and never the key)."""
    local = {"baseUrl": "http://localhost:11434/v1", "models": [{"id": "q"}]}
    providers = {"local": local, "literal": {**local, "apiKey": "sk-literal-123456"}, "named": {**local, "apiKey": "K"}}
    (tmp_path / "models.json").write_text(json.dumps({"providers": providers}))
    registry = ModelRegistry.load(tmp_path)
    assert registry.key_hint("anthropic") is None  # no key at all: api_key raises MissingApiKeyError
    registry.save_api_key("anthropic", "sk-ant-stored-123456")
    stored = registry.key_hint("anthropic")
    assert stored is not None and stored.source == f'{tmp_path / "auth.json"} ("anthropic")'
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env-123456")
    assert registry.key_hint("anthropic") == KeyHint(
        "the environment variable ANTHROPIC_API_KEY", "set ANTHROPIC_API_KEY to a valid key"
    )
    where = f"'local' in {tmp_path / 'models.json'}"
    assert registry.key_hint("local") == KeyHint(f"nowhere ({where} has no apiKey)", f'add "apiKey" to {where}')
    literal = registry.key_hint("literal")
    assert literal is not None and literal.source.startswith("the apiKey of 'literal'") and "sk-" not in literal.source
    named = registry.key_hint("named")
    assert named is not None and named.source.startswith("the apiKey of 'named'")  # K is not set: the literal "K"
    monkeypatch.setenv("K", "value-of-k-123456")
    assert registry.key_hint("named") == KeyHint(
        f"the environment variable K (the apiKey of 'named' in {tmp_path / 'models.json'})", "set K to a valid key"
    )
