"""Reading a JSON-lines stream as its readers must: split on "\\n" only (style rule 11).

`str.splitlines()` also splits on U+2028, U+2029, U+0085 and other characters that are legal, unescaped,
inside a JSON string, so a delta holding one would break a test that used it, not the product.
"""

from __future__ import annotations

import json

from pydantic import JsonValue

__all__ = ["json_lines", "lines"]


def lines(text: str) -> list[str]:
    """The non-empty lines of `text`, split on "\\n" only."""
    return [line for line in text.split("\n") if line]


def json_lines(text: str) -> list[dict[str, JsonValue]]:
    """Each line of a JSON-lines stream (`jupyter prime --mode json`'s stdout), parsed."""
    parsed: list[dict[str, JsonValue]] = []
    for line in lines(text):
        value = json.loads(line)
        if not isinstance(value, dict):
            raise ValueError(f"a JSON-lines stream holds objects, not {line[:80]!r}")
        parsed.append(value)
    return parsed
