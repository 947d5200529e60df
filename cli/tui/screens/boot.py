"""The screen `jupyter prime` paints first: the chat's editor and footer, before the chat can be imported.

The chat screen, its widgets and the view fold import pydantic and the protocol's models: about as long
again as Textual itself, which put our launch to a usable editor at 1.2x pi's (`benchmarks/bench_tui.py`).
The launch (`..launch`) opens the app on this look-alike instead: it needs Textual and the editor only,
takes keys at once, and imports the chat in a thread. Once the chat is imported, the app pushes it over
this screen with what was typed here: the draft (and where the cursor was), the prompts sent (they go out once
the session is open) and the editor's history, read once the keys already handed to the editor are in them
(`settle`). Keys typed during the swap wait in the app's queue and reach the chat's editor (focused before
they are handled), so nothing typed is lost.
"""

from __future__ import annotations

import asyncio
import importlib

from rich.text import Text
from textual.app import ComposeResult
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.widgets import Static

from ..widgets.editor import PromptEditor

__all__ = ["BootScreen"]

CHAT_MODULE = "prime_jupyter.cli.tui.screens.chat"


class BootScreen(Screen[None]):
    AUTO_FOCUS = "#editor"

    class Loaded(Message):
        """The chat screen's module is imported: the app swaps the chat in (with `BootScreen.typed`)."""

    def __init__(self, cwd_label: str) -> None:
        super().__init__()
        self._cwd_label = cwd_label
        self.sent: list[tuple[str, str]] = []
        """The prompts sent before the chat was there, as (behavior, text)."""

    def compose(self) -> ComposeResult:
        yield Static(id="conversation")
        yield PromptEditor(id="editor")
        yield Static(Text(self._cwd_label, style="dim", overflow="ellipsis", no_wrap=True), id="footer")

    def on_mount(self) -> None:
        self.call_after_refresh(self._load)

    def _load(self) -> None:
        self.run_worker(self._import_chat(), group="boot")

    async def _import_chat(self) -> None:
        await asyncio.to_thread(importlib.import_module, CHAT_MODULE)
        self.post_message(self.Loaded())

    @property
    def editor(self) -> PromptEditor:
        return self.query_one(PromptEditor)

    async def settle(self) -> None:
        """Wait until the keys handed to the editor so far are in its text, and the prompts they sent are
        in `sent`; the app calls it before it reads them (and hands no key to the editor meanwhile).

        The app hands each key to the editor's own queue; a key handed over just before the swap was
        still there when the app read the draft, and was then typed into this screen's editor, under the
        chat (a key lost in 2 of 25 runs of `benchmarks/bench_tui.py`). A prompt sent goes from the editor
        to this screen in a message (`Submitted`): one more pass of the editor's queue, then one of this
        screen's."""
        editor = self.editor
        await _handled(editor)  # the keys
        await _handled(editor)  # the `Submitted` they posted to it, passed on to this screen
        await _handled(self)  # and taken into `sent` here

    def on_prompt_editor_submitted(self, event: PromptEditor.Submitted) -> None:
        self.sent.append((event.behavior, event.text))


async def _handled(pump: MessagePump) -> None:
    """Return once `pump` has handled every message queued to it before the call (at once if it is closing)."""
    done = asyncio.Event()
    if pump.call_later(done.set):
        await done.wait()
