"""The menu above the editor: `/` commands whose names start with what was typed, then the completions
of a command's argument (from the connection's extensions)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

__all__ = ["CommandMenu", "command_matches"]


def command_matches(commands: Sequence[tuple[str, str]], typed: str) -> list[tuple[str, str]]:
    """The commands (name, description) a one-word `/...` text may still become."""
    if not typed.startswith("/") or " " in typed or "\n" in typed:
        return []
    word = typed[1:]
    matches = [c for c in commands if c[0].startswith(word)]
    return [] if len(matches) == 1 and matches[0][0] == word else matches  # fully typed: nothing to choose


class CommandMenu(OptionList):
    """Hidden while nothing matches. Each option's id is the editor text it completes to."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.can_focus = False
        self.display = False

    def show(self, choices: Sequence[tuple[str, str, str]]) -> bool:
        """Show (completed text, label, description) choices; returns whether the menu is open."""
        self.clear_options()
        for completed, label, description in choices:
            self.add_option(Option(Text.assemble(label, "  ", (description, "dim")), id=completed))
        self.display = bool(choices)
        if choices:
            self.highlighted = 0
        return bool(choices)

    def move(self, step: int) -> None:
        if self.option_count:
            self.highlighted = ((self.highlighted or 0) + step) % self.option_count

    def chosen(self) -> str | None:
        """The editor text the highlighted choice completes to."""
        if self.highlighted is None or not self.option_count:
            return None
        return self.get_option_at_index(self.highlighted).id
