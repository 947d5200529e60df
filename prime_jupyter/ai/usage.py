"""Usage accounting in dollars."""

from __future__ import annotations

from prime_jupyter.ai.models import Model
from prime_jupyter.ai.types import Cost, Usage

__all__ = ["apply_cost"]


def apply_cost(model: Model, usage: Usage) -> Usage:
    """Fill `usage.cost` (and `total_tokens`) from the model's per-million prices; returns the same object."""
    price = model.cost
    cost = Cost(
        input=price.input * usage.input / 1e6,
        output=price.output * usage.output / 1e6,
        cache_read=price.cache_read * usage.cache_read / 1e6,
        cache_write=price.cache_write * usage.cache_write / 1e6,
    )
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    usage.cost = cost
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    return usage
