"""The fork picker (`/fork`): the user messages of the active branch, filtered as the user types; Enter
forks a new session from just before the one picked (its text comes back into the editor)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from prime_jupyter.protocol.common import TreeNode

from ..widgets.key_order import OrderedInput
from .picker import Picker

__all__ = ["ForkPicker"]


class ForkPicker(Picker[str]):
    """Dismisses with the id of the user message to fork from (None: cancelled)."""

    def __init__(
        self, messages: Sequence[TreeNode], title: str = "Fork from a message (Enter forks, Esc closes)"
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.messages = list(messages)
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker"):
            yield Label(self.title_text, classes="dialog-title")
            yield OrderedInput(placeholder="filter", id="filter")
            yield OptionList(id="choices")

    def on_mount(self) -> None:
        self._fill("")

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        choices = self.query_one(OptionList)
        if choices.highlighted is not None and choices.option_count:
            self.dismiss(choices.get_option_at_index(choices.highlighted).id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def _fill(self, query: str) -> None:
        words = query.lower().split()
        choices = self.query_one(OptionList)
        choices.clear_options()
        for number, message in enumerate(self.messages, 1):
            text = " ".join((message.preview or "").split())
            if all(word in text.lower() for word in words):
                choices.add_option(Option(f"{number:>3}. {text or '(no text)'}", id=message.id))
        if choices.option_count:
            choices.highlighted = choices.option_count - 1  # the newest: the usual one to redo
