"""The `/` command menu above the editor: the commands whose names start with what was typed."""

from __future__ import annotations

from collections.abc import Sequence

from textual.widgets import OptionList
from textual.widgets.option_list import Option

__all__ = ["CommandMenu"]


class CommandMenu(OptionList):
    """Shows the matching commands; hidden while nothing matches. The screen moves it and reads it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.can_focus = False
        self.display = False

    def show_matches(self, commands: Sequence[tuple[str, str]], typed: str) -> bool:
        """Show the commands (name, description) that start with `typed` (a word starting with `/`);
        returns whether the menu is open."""
        word = typed[1:] if typed.startswith("/") else None
        one_word = word is not None and " " not in typed and "\n" not in typed
        matches = [c for c in commands if word is not None and c[0].startswith(word)] if one_word else []
        if len(matches) == 1 and matches[0][0] == word:
            matches = []  # fully typed: nothing left to choose
        self.clear_options()
        self.add_options([Option(f"/{name}  [dim]{description}[/dim]", id=name) for name, description in matches])
        self.display = bool(matches)
        if matches:
            self.highlighted = 0
        return bool(matches)

    def move(self, step: int) -> None:
        if self.option_count:
            self.highlighted = ((self.highlighted or 0) + step) % self.option_count

    def chosen(self) -> str | None:
        """The highlighted command's name."""
        if self.highlighted is None or not self.option_count:
            return None
        return self.get_option_at_index(self.highlighted).id
