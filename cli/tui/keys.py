"""The keys of the app, read from the bindings that run them (`/hotkeys`, `/help`): never a list of its own.

Each section names a class whose `BINDINGS` are its keys: its own and those it inherits from the app's
classes (a picker's from `Picker`), not Textual's (a text area's cursor keys). A binding's description
says what it does. Keys a class handles without a binding of its own (an option list's Up, Down and
Enter; the editor's history) are in its `KEY_NOTES`, beside the code that handles them.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.binding import Binding, BindingType
from textual.dom import DOMNode

__all__ = ["KeySection", "key_name", "key_sections"]

KeySection = tuple[str, list[tuple[str, str]]]
"""A title and its (keys, what they do) rows."""

_OURS = __name__.rpartition(".")[0]
"""The app's package: its classes' bindings are listed, Textual's own are not."""
_NAMES = {"newline": "", "escape": "Esc", "pageup": "PgUp", "pagedown": "PgDn"}
_NAMES |= {"up": "↑", "down": "↓", "left": "←", "right": "→"}


def key_name(key: str) -> str:
    """`ctrl+shift+tab` → `Ctrl+Shift+Tab`, `escape` → `Esc`, `l` → `l` (`newline`, a key some terminals
    send for Shift+Enter: "", not shown)."""
    parts = key.split("+")
    return "+".join(_NAMES.get(part, part.capitalize() if len(part) > 1 or len(parts) > 1 else part) for part in parts)


def _bindings(cls: type[DOMNode]) -> list[Binding]:
    """The class's bindings, those inherited from the app's classes included (a subclass's key wins)."""
    seen: dict[str, Binding] = {}
    for klass in cls.__mro__:
        if not klass.__module__.startswith(_OURS):
            continue
        listed: list[BindingType] = list(klass.__dict__.get("BINDINGS", []))
        for binding in Binding.make_bindings(listed):
            seen.setdefault(binding.key, binding)
    return list(seen.values())


def key_sections(sections: Sequence[tuple[str, type[DOMNode]]]) -> list[KeySection]:
    """Each section's keys, grouped by action (`escape,q` is one row), with its extra notes."""
    table: list[KeySection] = []
    for title, cls in sections:
        rows: dict[tuple[str, str], list[str]] = {}
        for binding in _bindings(cls):
            description = binding.description or binding.action
            rows.setdefault((binding.action, description), []).append(key_name(binding.key))
        entries = [(" / ".join(k for k in keys if k), description) for (_action, description), keys in rows.items()]
        entries += list(getattr(cls, "KEY_NOTES", ()))
        if entries:
            table.append((title, entries))
    return table
