"""What a remote connection cannot do: process-local members, and features the server lacks.

Both raise `AgentConnectionUnsupportedError` with a `feature` name, before anything is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NoReturn

from prime_jupyter.connection.extensions import CommandInfo, Renderer
from prime_jupyter.connection.types import AgentConnectionUnsupportedError

__all__ = ["RemoteExtensions", "process_local", "require_capability"]


def process_local(feature: str) -> NoReturn:
    raise AgentConnectionUnsupportedError(
        f"{feature} is process-local: it exists only where the session runs, not over HTTP", feature
    )


def require_capability(capability: str, offered: Iterable[str], feature: str, server: str) -> None:
    """Raise unless the server offers `capability` (`version.py`: capability-gated changes)."""
    if capability not in set(offered):
        raise AgentConnectionUnsupportedError(
            f"{feature} needs the server capability {capability!r}, which {server} does not offer: "
            "upgrade prime-jupyter on the server",
            feature,
        )


class RemoteExtensions:
    """`ConnectionExtensions` over HTTP: every member is process-local."""

    def commands(self) -> list[CommandInfo]:
        process_local("extensions.commands")

    def get_argument_completions(self, command: str, prefix: str) -> list[str]:
        process_local("extensions.get_argument_completions")

    def get_command_diagnostics(self) -> list[str]:
        process_local("extensions.get_command_diagnostics")

    def get_shortcuts(self) -> dict[str, str]:
        process_local("extensions.get_shortcuts")

    def get_message_renderer(self, custom_type: str) -> Renderer | None:
        process_local("extensions.get_message_renderer")

    def get_tool_renderer(self, tool_name: str) -> Renderer | None:
        process_local("extensions.get_tool_renderer")

    def register_tool_renderer(self, tool_name: str, renderer: Renderer) -> None:
        process_local("extensions.register_tool_renderer")

    def register_message_renderer(self, custom_type: str, renderer: Renderer) -> None:
        process_local("extensions.register_message_renderer")

    def bind_extensions(self, bindings: dict[str, Callable[..., object]]) -> None:
        process_local("extensions.bind_extensions")
