"""The base of every wire model: camelCase keys, forward-tolerant parsing, one way to dump.

Every request, response, frame and command is a `WireModel`. Keys are camelCase on the wire (like the
`ai` message types) and snake_case in Python. Unknown keys are ignored when parsing, so an old reader
accepts what a newer writer added (see `version.py` for the compatibility rule). Dumps leave out
`None`: an absent key and `null` mean the same thing to every reader of this protocol.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, JsonValue
from pydantic.alias_generators import to_camel

from prime_jupyter.ai.json_text import model_json

__all__ = ["WireModel", "dump", "dump_json"]


class WireModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", defer_build=True)


def dump(model: BaseModel) -> dict[str, JsonValue]:
    """The JSON-ready dict of a wire model (camelCase keys, `None` left out)."""
    data: dict[str, JsonValue] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data


def dump_json(model: BaseModel) -> str:
    """One line of JSON for a wire model: no newline, non-ASCII kept as is (U+2028 included), a lone
    surrogate replaced (`ai.json_text`)."""
    return model_json(model)
