"""Editing keys run in the order they came, in the prompt editor and in every one-line input.

Textual (8.2) inserts a typed character as soon as its widget reads the key, but runs a bound key's
action (Backspace, the arrows, Ctrl+U, Enter in an input) only once the key has bubbled up to the app,
through each parent's message queue. So when keys come in a burst (the loop busy with a streaming
answer, a paste the terminal does not bracket, keys sent by tmux) the characters typed after a bound
key were inserted before it ran: `abc`, Backspace, `xyz` became `abcxy`, and Ctrl+U then `xyz` left
nothing (Textual issue 6605). A widget here runs its own bindings itself, when it reads the key. They
are the first bindings the app would try (the focused widget's), so the same action runs, only in its
turn; an action that skips (Ctrl+C with nothing selected) lets the key go on to the screen as before.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Input

__all__ = ["OrderedInput", "editing_keys", "run_editing_key"]


def editing_keys(bindings: list[BindingType]) -> dict[str, str]:
    """Key → action for the non-priority ones of `bindings` (a widget class's `BINDINGS`)."""
    return {binding.key: binding.action for binding in Binding.make_bindings(bindings) if not binding.priority}


async def run_editing_key(widget: Widget, event: events.Key, keys: dict[str, str]) -> bool:
    """Run the action `keys` binds `event`'s key to, now, on `widget`; say whether it ran (the key is
    then consumed)."""
    action = keys.get(event.key)
    if action is None or not await widget.app.run_action(action, widget):
        return False
    event.stop()
    event.prevent_default()
    return True


class OrderedInput(Input):
    """A one-line `Input` whose editing keys and Enter run in the order they were typed."""

    _KEYS = editing_keys(Input.BINDINGS)

    async def _on_key(self, event: events.Key) -> None:
        if not await run_editing_key(self, event, self._KEYS):
            await super()._on_key(event)
