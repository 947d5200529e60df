"""What the menu above the editor offers for the text typed so far.

`/` and a word: the commands it may become. `/command ` and more: the argument completions the
connection's extensions give (none where they do not run here, over HTTP). A word starting with `@` at
the end: files under the session's folder, fuzzy matched (listed once, in a thread, on first use).
Each choice is (the editor text it completes to, its label, a description).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.types import AgentConnectionUnsupportedError

from .files import file_matches, list_files, token_at_end
from .widgets.command_menu import command_matches

__all__ = ["Choice", "Completions"]

Choice = tuple[str, str, str]


class Completions:
    def __init__(self, commands: Callable[[], Sequence[tuple[str, str]]]) -> None:
        self._commands = commands
        self.connection: AgentConnection | None = None
        self.cwd = Path.cwd()
        self.files: list[str] | None = None
        """The files under `cwd`, once listed (`list_files`)."""

    def set_cwd(self, cwd: str) -> None:
        """The session's folder, when it is on this machine (an attached session's may be elsewhere)."""
        here = Path(cwd)
        self.cwd = here if here.is_dir() else Path.cwd()
        self.files = None

    def needs_files(self, text: str) -> bool:
        return self.files is None and token_at_end(text) is not None and not text.startswith("/")

    async def list_files(self) -> None:
        self.files = []  # being listed: once is enough
        self.files = await asyncio.to_thread(list_files, self.cwd)

    def choices(self, text: str) -> list[Choice]:
        mention = token_at_end(text)
        if mention is not None and not text.startswith("/"):
            stem = text[: len(text) - len(mention)]
            return [(f"{stem}{path} ", f"@{path}", "") for path in file_matches(self.files or [], mention)]
        commands = [(f"/{name} ", f"/{name}", about) for name, about in command_matches(self._commands(), text)]
        if commands or not text.startswith("/") or "\n" in text or " " not in text:
            return commands
        name, _, prefix = text[1:].partition(" ")
        return [(f"/{name} {item}", item, "") for item in self._arguments(name, prefix) if item != prefix]

    def _arguments(self, command: str, prefix: str) -> list[str]:
        if command == "theme":  # the app's own command
            return [name for name in ("dark", "light") if name.startswith(prefix)]
        if self.connection is None or " " in prefix:
            return []
        try:
            return self.connection.extensions.get_argument_completions(command, prefix)[:20]
        except AgentConnectionUnsupportedError:
            return []
