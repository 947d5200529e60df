"""`PrimeApp`: the terminal app of `jupyter prime`. It only wires the chat screen and the app-wide keys;
the chat screen holds the session (through its `AgentConnection`) and opens the other screens. With
`boot`, the app opens on the boot screen and swaps the chat in once imported (`screens/boot.py`): the
chat's module is imported only then, so this one stays light."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

if TYPE_CHECKING:
    from pathlib import Path

    from prime_jupyter.connection.base import AgentConnection

    from .connect import Connector
    from .images import InlineImage
    from .screens.boot import BootScreen
    from .screens.chat import ChatScreen

__all__ = ["PrimeApp"]


class PrimeApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "prime"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("ctrl+q", "quit", "quit", show=False, priority=True)]

    def __init__(
        self,
        connect: Connector,
        *,
        cwd_label: str,
        initial_prompt: str | None = None,
        attached: bool = False,
        owns_connection: bool = False,
        boot: bool = False,
        inline_images: InlineImage | None = None,
        theme: str | None = None,
        settings_file: Path | None = None,
    ) -> None:
        super().__init__()
        self._boot = boot
        self._connect = connect
        self._owns_connection = owns_connection
        self._cwd_label = cwd_label
        self._initial_prompt = initial_prompt
        self.attached = attached
        """Attached to a server: quitting leaves the session running there."""
        self.settings_file = settings_file
        """Where `/theme` keeps the chosen theme (`connection.preferences`); None: it is not kept."""
        if theme in self.available_themes:
            self.theme = theme  # the one chosen last time, before the first paint
        self.inline_images = inline_images
        """How tool cards draw images on this terminal (None: as placeholders); `images.inline_images()`."""
        self.connection: AgentConnection | None = None
        """The chat's connection once open. Whoever runs the app disposes of it after the app exits, unless the
        app `owns_connection`: then the chat disposes of it as it closes, on the app's own event loop."""
        self.failure: str | None = None
        """Why the app ended without a session (the connection could not be opened)."""

    def get_default_screen(self) -> Screen[None]:
        if self._boot:
            from .screens.boot import BootScreen

            return BootScreen(self._cwd_label)
        return self._chat()

    def _chat(self) -> ChatScreen:
        from .screens.chat import ChatScreen

        return ChatScreen(
            self._connect, self._cwd_label, self._initial_prompt, dispose=self._owns_connection, attached=self.attached
        )

    async def on_boot_screen_loaded(self, message: BootScreen.Loaded) -> None:
        """Put the chat over the boot screen, with the draft, the prompts sent and the history."""
        from .screens.boot import BootScreen

        boot = self.screen
        if not isinstance(boot, BootScreen):
            return
        await boot.settle()  # the keys already handed to its editor are in the draft
        draft, cursor, history = boot.editor.text, boot.editor.cursor_location, boot.editor.sent
        chat = self._chat()
        for behavior, text in boot.sent:
            chat.queue_prompt(text, behavior)
        await self.push_screen(chat)  # over the boot screen: Textual cannot switch its default screen away
        chat.editor.sent = history
        chat.editor.load_text(draft)
        chat.editor.move_cursor(cursor)
        chat.set_focus(chat.editor)  # now, so that keys queued during the swap reach it

    def on_chat_screen_connected(self, message: ChatScreen.Connected) -> None:
        self.connection = message.connection

    def on_chat_screen_connect_failed(self, message: ChatScreen.ConnectFailed) -> None:
        self.failure = message.error
        self.exit()
