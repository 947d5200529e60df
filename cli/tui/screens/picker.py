"""`Picker`: what every filtered list dialog shares (the model and session pickers).

Escape cancels, Up and Down move through the choices (wrapping) while the filter keeps the focus.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import OptionList

__all__ = ["Picker"]

T = TypeVar("T")


class Picker(ModalScreen[T | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "close"),
        Binding("down", "move(1)", "next choice", show=False),
        Binding("up", "move(-1)", "previous choice", show=False),
    ]
    KEY_NOTES: ClassVar[tuple[tuple[str, str], ...]] = (("Enter", "pick the highlighted choice"),)

    def action_move(self, step: int) -> None:
        choices = self.query_one(OptionList)
        if choices.option_count:
            choices.highlighted = ((choices.highlighted or 0) + step) % choices.option_count

    def action_cancel(self) -> None:
        self.dismiss(None)
