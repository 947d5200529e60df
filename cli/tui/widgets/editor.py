"""The prompt editor: multi-line, Enter sends, history on Up and Down, keys for the command menu.

Enter sends (and, while a run goes, steers); Alt+Enter queues a follow-up; Ctrl+J always inserts a new
line, and so does Shift+Enter where the terminal reports it (many send plain Enter for it). Ctrl+G asks
for the prompt in the user's own editor. Up on the
first line and Down on the last walk through the prompts sent before. While the command menu is open,
Up, Down and Tab move in it and complete from it instead: the editor only says so (messages up).
Every key is handled in the order it came, editing keys included (`key_order`).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from .key_order import editing_keys, run_editing_key

__all__ = ["PromptEditor"]

Behavior = Literal["send", "follow_up"]


class PromptEditor(TextArea):
    """The text the user writes; posts `Submitted` on Enter and `MenuKey` while the menu is open."""

    BINDINGS = [
        Binding("enter", "submit('send')", "send; while a run goes, steer it", show=False),
        Binding("alt+enter", "submit('follow_up')", "queue a follow-up for when the run ends", show=False),
        Binding("ctrl+j,shift+enter,newline", "newline", "new line", show=False),
        Binding("ctrl+g", "external_edit", "edit the prompt in $VISUAL / $EDITOR", show=False),
    ]
    """Run by `_on_key` before the text area's own handling (which would take Enter as a new line)."""
    KEY_NOTES: ClassVar[tuple[tuple[str, str], ...]] = (
        ("↑ / ↓", "earlier prompts (on the first / last line); with the menu open: move in it"),
        ("Tab", "complete from the menu (commands, arguments, @files)"),
        ("!cmd / !!cmd", "run a shell command: the agent sees its output / only you do"),
    )
    _ACTIONS: ClassVar[dict[str, str]] = {binding.key: binding.action for binding in Binding.make_bindings(BINDINGS)}
    _EDITING: ClassVar[dict[str, str]] = editing_keys(TextArea.BINDINGS)
    """The text area's own editing keys (Backspace, the arrows, Ctrl+U, …): run in their turn (`key_order`)."""

    class Submitted(Message):
        """The user sent the editor's text (`follow_up`: Alt+Enter)."""

        def __init__(self, text: str, behavior: Behavior) -> None:
            super().__init__()
            self.text = text
            self.behavior = behavior

    class ExternalEdit(Message):
        """Ctrl+G: the user wants the prompt in their own editor (after the keys typed before it)."""

    class MenuKey(Message):
        """A key meant for the command menu: `up`, `down` or `tab`."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, tab_behavior="focus", show_line_numbers=False, compact=True)
        self.menu_open = False
        """Set by the screen while the command menu shows (attributes down)."""
        self.sent: list[str] = []
        self._recall: int | None = None
        self._draft = ""

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self.menu_open and key in ("up", "down", "tab"):
            self._consume(event)
            self.post_message(self.MenuKey(key))
            return
        action = self._ACTIONS.get(key)
        if action is not None:
            self._consume(event)
            await self.run_action(action)
            return
        if key == "up" and self.cursor_location[0] == 0 and self._step_history(-1):
            self._consume(event)
            return
        if key == "down" and self.cursor_location[0] == self.document.line_count - 1 and self._step_history(1):
            self._consume(event)
            return
        if not await run_editing_key(self, event, self._EDITING):
            await super()._on_key(event)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """On an empty editor Ctrl+D (the text area's delete-right) is not the editor's: it goes on to
        the screen, where it quits."""
        if action == "delete_right" and not self.text:
            return False
        return super().check_action(action, parameters)

    def action_submit(self, behavior: Behavior) -> None:
        self._submit(behavior)

    def action_newline(self) -> None:
        self.insert("\n")

    def action_external_edit(self) -> None:
        self.post_message(self.ExternalEdit())

    def set_prompt(self, text: str) -> None:
        """Replace the text and put the cursor at its end."""
        self.load_text(text)
        self.move_cursor(self.document.end)

    def _submit(self, behavior: Behavior) -> None:
        text = self.text
        if not text.strip():
            return
        if not self.sent or self.sent[-1] != text:
            self.sent.append(text)
        self._recall = None
        self.load_text("")
        self.post_message(self.Submitted(text, behavior))

    def _step_history(self, step: int) -> bool:
        """Show the previous (-1) or next (+1) prompt sent; False when there is none to move to."""
        if not self.sent or (self._recall is None and step > 0):
            return False
        if self._recall is None:
            self._draft = self.text
            index = len(self.sent) - 1
        else:
            index = self._recall + step
        if index < 0:
            return True  # the oldest one stays
        if index >= len(self.sent):
            self._recall = None
            self.set_prompt(self._draft)
            return True
        self._recall = index
        self.set_prompt(self.sent[index])
        return True

    @staticmethod
    def _consume(event: events.Key) -> None:
        event.stop()
        event.prevent_default()
