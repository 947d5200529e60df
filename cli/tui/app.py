"""`PrimeApp`: the terminal app of `jupyter prime`. It only wires the chat screen and the app-wide keys;
the chat screen holds the session (through its `AgentConnection`) and opens the other screens."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from prime_jupyter.connection.base import AgentConnection

from .connect import Connector
from .images import InlineImage
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
        inline_images: InlineImage | None = None,
        theme: str | None = None,
        settings_file: Path | None = None,
    ) -> None:
        super().__init__()
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
        return ChatScreen(
            self._connect, self._cwd_label, self._initial_prompt, dispose=self._owns_connection, attached=self.attached
        )

    def on_chat_screen_connected(self, message: ChatScreen.Connected) -> None:
        self.connection = message.connection

    def on_chat_screen_connect_failed(self, message: ChatScreen.ConnectFailed) -> None:
        self.failure = message.error
        self.exit()
