"""The model picker (`/model`): the connection's models, filtered as the user types, Enter picks."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from prime_jupyter.protocol.common import ModelRef

from ..widgets.key_order import OrderedInput
from .picker import Picker

__all__ = ["ModelChoice", "ModelPicker"]

ModelChoice = tuple[ModelRef, str, bool]
"""A model, its display name, and whether its provider has a key."""


class ModelPicker(Picker[ModelRef]):
    def __init__(self, models: Sequence[ModelChoice], current: ModelRef | None, initial: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.models = sorted(models, key=lambda choice: not choice[2])
        """The models whose provider has a key first, each group in the connection's order."""
        self.current = current
        self.initial = initial

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker"):
            yield Label("Model", classes="dialog-title")
            yield OrderedInput(value=self.initial, placeholder="filter", id="filter")
            yield OptionList(id="choices")

    def on_mount(self) -> None:
        self._fill(self.initial)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        choices = self.query_one(OptionList)
        if choices.highlighted is not None and choices.option_count:
            self._pick(choices.get_option_at_index(choices.highlighted).id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._pick(event.option.id)

    def _fill(self, query: str) -> None:
        words = query.lower().split()
        choices = self.query_one(OptionList)
        choices.clear_options()
        highlight = 0
        for ref, name, available in self.models:
            key = f"{ref.provider}/{ref.id}"
            if not all(word in f"{key} {name}".lower() for word in words):
                continue
            if ref == self.current:
                highlight = choices.option_count
            mark = "● " if ref == self.current else "  "
            note = "" if available else "  [dim](no key)[/dim]"
            choices.add_option(Option(f"{mark}{key}  [dim]{name}[/dim]{note}", id=key))
        if choices.option_count:
            choices.highlighted = highlight if not words else 0

    def _pick(self, key: str | None) -> None:
        if key:
            provider, _, model_id = key.partition("/")
            self.dismiss(ModelRef(provider=provider, id=model_id))
