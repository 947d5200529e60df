"""Incremental parsing of JSON that is still arriving (tool-call arguments while they stream).

`PartialJson.feed()` keeps the scanner state (open brackets, string and escape state) across pieces, so each
piece costs only its own length in Python; completing the document is then one C-speed `json.loads` of
the text plus the closing brackets. Large arguments are re-parsed only every few KB to keep a long
stream linear in practice.
"""

from __future__ import annotations

import json

from pydantic import JsonValue

__all__ = ["PartialJson"]

_REPARSE_EVERY = 4096
_EAGER_LIMIT = 16_384


class PartialJson:
    def __init__(self) -> None:
        self.text = ""
        self._stack: list[str] = []
        self._in_string = False
        self._escape = False
        self._last: dict[str, JsonValue] = {}
        self._parsed_at = 0

    def feed(self, piece: str) -> dict[str, JsonValue]:
        """Add a piece; return the best object parsed so far (the previous one if nothing new parses)."""
        self.text += piece
        self._scan(piece)
        size = len(self.text)
        if size > _EAGER_LIMIT and size - self._parsed_at < _REPARSE_EVERY:
            return self._last
        self._parsed_at = size
        value = self._complete()
        if isinstance(value, dict):
            self._last = value
        return self._last

    def final(self) -> dict[str, JsonValue]:
        """The complete arguments; an empty or unparseable document gives what parsed last."""
        text = self.text.strip()
        if not text:
            return {}
        try:
            value = json.loads(text)
        except ValueError:
            value = self._complete()
        return value if isinstance(value, dict) else self._last

    def _scan(self, piece: str) -> None:
        stack = self._stack
        in_string, escape = self._in_string, self._escape
        for ch in piece:
            if in_string:
                if escape:
                    escape = False
                elif ch == "\\":
                    escape = True
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch in "{[":
                stack.append("}" if ch == "{" else "]")
            elif ch in "}]" and stack:
                stack.pop()
        self._in_string, self._escape = in_string, escape

    def _complete(self) -> JsonValue:
        text = self.text
        if self._in_string:
            text = text[:-1] if self._escape else text
            text += '"'
        closers = "".join(reversed(self._stack))
        for candidate in _candidates(text):
            try:
                parsed: JsonValue = json.loads(candidate + closers)
                return parsed
            except ValueError:
                continue
        return None


def _candidates(text: str) -> list[str]:
    """The text, then the text cut back to its last complete member (dropping a dangling key or value)."""
    out = [text]
    stripped = text.rstrip()
    if stripped.endswith((",", ":")):
        stripped = stripped[:-1]
        out.append(stripped)
    cut = max(stripped.rfind(","), stripped.rfind("{"), stripped.rfind("["))
    if cut >= 0:
        out.append(stripped[: cut + 1] if stripped[cut] in "{[" else stripped[:cut])
    return out
