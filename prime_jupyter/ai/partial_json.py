"""Tool-call arguments while they stream: the best object their JSON so far stands for.

The parsing is pydantic-core's (`from_json(..., allow_partial="trailing-strings")`: open brackets closed,
a dangling key dropped, a string still arriving kept as far as it got, so a cell's code shows while the
model writes it). What is left here is when to parse: each piece while the arguments are small, then
once every few KB, so that a long stream stays linear in practice.
"""

from __future__ import annotations

from pydantic import JsonValue
from pydantic_core import from_json

__all__ = ["PartialJson"]

_REPARSE_EVERY = 4096
_EAGER_LIMIT = 16_384


class PartialJson:
    def __init__(self) -> None:
        self.text = ""
        self._last: dict[str, JsonValue] = {}
        self._parsed_at = 0

    def feed(self, piece: str) -> dict[str, JsonValue]:
        """Add a piece; return the best object parsed so far (the previous one if nothing new parses)."""
        self.text += piece
        size = len(self.text)
        if size > _EAGER_LIMIT and size - self._parsed_at < _REPARSE_EVERY:
            return self._last
        self._parsed_at = size
        value = _parse(self.text, partial=True)
        if isinstance(value, dict):
            self._last = value
        return self._last

    def final(self) -> dict[str, JsonValue]:
        """The complete arguments; an empty or unparseable document gives what parsed last."""
        text = self.text.strip()
        if not text:
            return {}
        value = _parse(text, partial=False)
        if value is None:
            value = _parse(text, partial=True)
        return value if isinstance(value, dict) else self._last


def _parse(text: str, *, partial: bool) -> JsonValue:
    try:
        value: JsonValue = from_json(text, allow_partial="trailing-strings" if partial else False)
    except ValueError:
        return None
    return value
