"""The screen `jupyter prime` paints first: the chat's editor and footer, before the chat can be imported.

The chat screen, its widgets and the view fold import pydantic and the protocol's models: about as long
again as Textual itself, which put our launch to a usable editor at 1.2x pi's (`benchmarks/bench_tui.py`).
The launch (`..launch`) opens the app on this look-alike instead: it needs Textual and the editor only,
takes keys at once, and imports the chat in a thread. Once the chat is imported, the app pushes it over
this screen with what was typed here: the draft (and where the cursor was), the prompts sent (they go out once
the session is open) and the editor's history. Keys typed during the swap wait in the app's queue and
reach the chat's editor (focused before they are handled), so nothing typed is lost.
"""

from __future__ import annotations

import asyncio
import importlib

from rich.text import Text
from textual.app import ComposeResult
from textual.message import Message
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

    def on_prompt_editor_submitted(self, event: PromptEditor.Submitted) -> None:
        self.sent.append((event.behavior, event.text))
