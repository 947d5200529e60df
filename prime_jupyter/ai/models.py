"""The model registry: what a model is, the built-in catalogue, and thinking levels.

A `Model` is plain data. `ModelRegistry` (in `registry.py`) merges these built-ins with the user's
`models.json`; this module only describes models and how thinking levels map onto providers.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

__all__ = [
    "ANTHROPIC_THINKING_BUDGETS",
    "BUILTIN_MODELS",
    "CLOUD_PLATFORMS",
    "THINKING_LEVELS",
    "Api",
    "CloudPlatform",
    "InputKind",
    "Model",
    "ModelCost",
    "ThinkingLevel",
    "anthropic_effort",
    "anthropic_thinking_budget",
    "clamp_thinking_level",
    "image_not_shown",
    "openai_reasoning_effort",
    "supported_thinking_levels",
]

Api: TypeAlias = Literal["anthropic-messages", "openai-completions", "openai-responses"]
ThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
InputKind: TypeAlias = Literal["text", "image"]
THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high", "xhigh")
ANTHROPIC_THINKING_BUDGETS: dict[ThinkingLevel, int] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
}


CLOUD_PLATFORMS = ("bedrock", "vertex", "azure")


class CloudPlatform(BaseModel):
    """Where a model runs when it runs on a cloud platform, reached through the provider's own SDK client
    (`ai/providers/cloud.py`): its request signing and credential chain (AWS's, Google's, Azure's)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True, extra="forbid")
    platform: Literal["bedrock", "vertex", "azure"]
    region: str | None = None
    """Bedrock: the AWS region (else `AWS_REGION`, the profile's); Vertex: the region (else `CLOUD_ML_REGION`)."""
    profile: str | None = None
    """Bedrock: a named profile of `~/.aws/config` (else the default credential chain)."""
    project_id: str | None = None
    """Vertex: the Google Cloud project (else `ANTHROPIC_VERTEX_PROJECT_ID`, the credentials')."""
    api_version: str | None = None
    """Azure: the `api-version` (else `OPENAI_API_VERSION`)."""


class ModelCost(BaseModel):
    """Prices in dollars per million tokens."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


class Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)
    id: str
    name: str
    api: Api
    provider: str
    base_url: str | None = None
    reasoning: bool = False
    input: tuple[InputKind, ...] = ("text",)
    context_window: int = 128_000
    max_tokens: int = 16_384
    cost: ModelCost = Field(default_factory=ModelCost)
    xhigh: bool = False  # whether the provider has a level above "high" for this model
    adaptive: bool = False  # Anthropic models that take `thinking: adaptive` + an effort, not a token budget
    cloud: CloudPlatform | None = None
    """Set for a model on Bedrock, Vertex AI or Azure OpenAI (`models.json` `cloud`)."""

    @property
    def key(self) -> str:
        return f"{self.provider}/{self.id}"

    @property
    def accepts_images(self) -> bool:
        return "image" in self.input


def image_not_shown(image: str) -> str:
    """The note that stands for an image a model does not take (`image` names it: "image 1: image/png"),
    the same wherever the image was left out: a tool's output, or a message sent before a model switch."""
    return f"[{image}, not shown: this model does not take images]"


def supported_thinking_levels(model: Model) -> list[ThinkingLevel]:
    if not model.reasoning:
        return ["off"]
    levels: list[ThinkingLevel] = ["off", "minimal", "low", "medium", "high"]
    return [*levels, "xhigh"] if model.xhigh else levels


def clamp_thinking_level(model: Model, level: ThinkingLevel) -> ThinkingLevel:
    """The nearest level the model supports, preferring the higher one."""
    supported = supported_thinking_levels(model)
    if level in supported:
        return level
    wanted = THINKING_LEVELS.index(level)
    higher = [lv for lv in supported if THINKING_LEVELS.index(lv) > wanted]
    return higher[0] if higher else supported[-1]


def anthropic_thinking_budget(level: ThinkingLevel, max_tokens: int) -> tuple[int, int] | None:
    """(budget_tokens, max_tokens) for an Anthropic request, or None when thinking is off."""
    if level == "off":
        return None
    budget = ANTHROPIC_THINKING_BUDGETS["high" if level == "xhigh" else level]
    if max_tokens <= budget:
        budget = max(1024, max_tokens - 1024)
        max_tokens = budget + 1024
    return budget, max_tokens


def anthropic_effort(level: ThinkingLevel) -> str | None:
    """The `output_config.effort` of an adaptive-thinking Anthropic model (None when thinking is off)."""
    return None if level == "off" else {"minimal": "low"}.get(level, level)


def openai_reasoning_effort(level: ThinkingLevel) -> str | None:
    """OpenAI's `reasoning_effort` value for a level (None: do not send one)."""
    return None if level == "off" else level


def _m(
    provider: str,
    api: Api,
    id: str,
    name: str,
    price: tuple[float, float, float, float],
    context: int,
    max_tokens: int,
    *,
    reasoning: bool = True,
    images: bool = True,
    xhigh: bool = False,
    adaptive: bool = False,
) -> Model:
    return Model(
        id=id,
        name=name,
        api=api,
        provider=provider,
        reasoning=reasoning,
        input=("text", "image") if images else ("text",),
        context_window=context,
        max_tokens=max_tokens,
        cost=ModelCost(input=price[0], output=price[1], cache_read=price[2], cache_write=price[3]),
        xhigh=xhigh,
        adaptive=adaptive,
    )


_A: Api = "anthropic-messages"
_O: Api = "openai-responses"
_ADA = {"adaptive": True, "xhigh": True}

BUILTIN_MODELS: tuple[Model, ...] = (
    _m("anthropic", _A, "claude-sonnet-5-5", "Claude Sonnet 5.5", (2, 10, 0.2, 2.5), 1_000_000, 128_000, **_ADA),
    _m("anthropic", _A, "claude-opus-5-5", "Claude Opus 5.5", (4, 20, 0.2, 5), 1_000_000, 128_000, **_ADA),
    _m("anthropic", _A, "claude-haiku-5-5", "Claude Haiku 5.5", (0.1, 0.5, 0.01, 0.125), 1_000_000, 128_000, **_ADA),
    _m("anthropic", _A, "claude-fable-5-1", "Claude Fable 5.1", (10, 50, 0.25, 12.5), 1_000_000, 128_000, **_ADA),
    _m("anthropic", _A, "claude-opus-5", "Claude Opus 5", (5, 25, 0.5, 6.25), 1_000_000, 128_000, **_ADA),
    _m("anthropic", _A, "claude-sonnet-5", "Claude Sonnet 5", (2, 10, 0.2, 2.5), 1_000_000, 128_000, **_ADA),
    _m("anthropic", _A, "claude-opus-4-6", "Claude Opus 4.6", (5, 25, 0.5, 6.25), 1_000_000, 128_000),
    _m("anthropic", _A, "claude-sonnet-4-6", "Claude Sonnet 4.6", (3, 15, 0.3, 3.75), 1_000_000, 64_000),
    _m("anthropic", _A, "claude-haiku-4-5", "Claude Haiku 4.5", (1, 5, 0.1, 1.25), 200_000, 64_000),
    _m("anthropic", _A, "claude-opus-4-5", "Claude Opus 4.5", (5, 25, 0.5, 6.25), 200_000, 64_000),
    _m("anthropic", _A, "claude-sonnet-4-5", "Claude Sonnet 4.5", (3, 15, 0.3, 3.75), 200_000, 64_000),
    _m("anthropic", _A, "claude-opus-4-1", "Claude Opus 4.1", (15, 75, 1.5, 18.75), 200_000, 32_000),
    _m("openai", _O, "gpt-5.4", "GPT-5.4", (2.5, 15, 0.25, 0), 272_000, 128_000, xhigh=True),
    _m("openai", _O, "gpt-5.2", "GPT-5.2", (1.75, 14, 0.175, 0), 400_000, 128_000, xhigh=True),
    _m("openai", _O, "gpt-5.1", "GPT-5.1", (1.25, 10, 0.13, 0), 400_000, 128_000),
    _m("openai", _O, "gpt-5", "GPT-5", (1.25, 10, 0.125, 0), 400_000, 128_000),
    _m("openai", _O, "gpt-5-mini", "GPT-5 Mini", (0.25, 2, 0.025, 0), 400_000, 128_000),
    _m("openai", _O, "gpt-5-nano", "GPT-5 Nano", (0.05, 0.4, 0.005, 0), 400_000, 128_000),
    _m("openai", _O, "gpt-4.1", "GPT-4.1", (2, 8, 0.5, 0), 1_047_576, 32_768, reasoning=False),
    _m("openai", _O, "gpt-4o", "GPT-4o", (2.5, 10, 1.25, 0), 128_000, 16_384, reasoning=False),
    _m("openai", _O, "o3", "o3", (2, 8, 0.5, 0), 200_000, 100_000),
    _m("openai", _O, "o4-mini", "o4-mini", (1.1, 4.4, 0.28, 0), 200_000, 100_000),
)
