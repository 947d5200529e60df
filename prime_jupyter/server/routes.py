"""The URL table of the extension, under `<base_url>prime/api/` (design.md D7: every route authenticated)."""

from __future__ import annotations

from prime_jupyter.server.attach.handlers import connection_routes
from prime_jupyter.server.chat.handlers import (
    ChatAbortHandler,
    ChatEventsHandler,
    ChatHandler,
    ChatNewHandler,
    ChatQuestionHandler,
    ChatSessionHandler,
)
from prime_jupyter.server.chat.providers import ChatProvidersHandler, ChatProviderTestHandler
from prime_jupyter.server.chat.sessions import (
    ChatCommandHandler,
    ChatCommandsHandler,
    ChatModelHandler,
    ChatModelsHandler,
    ChatSessionsHandler,
)
from prime_jupyter.server.http.base import PrimeHandler
from prime_jupyter.server.info import InfoHandler

__all__ = ["API_PREFIX", "Route", "chat_routes", "has_connection_routes", "route_table"]

API_PREFIX = "/prime/api/"
Route = tuple[str, type[PrimeHandler]]


def chat_routes() -> list[Route]:
    table: list[tuple[str, type[PrimeHandler]]] = [
        ("info", InfoHandler),
        ("chat", ChatHandler),
        ("chat/new", ChatNewHandler),
        ("chat/events", ChatEventsHandler),
        ("chat/session", ChatSessionHandler),
        ("chat/question", ChatQuestionHandler),
        ("chat/abort", ChatAbortHandler),
        ("chat/sessions", ChatSessionsHandler),
        ("chat/models", ChatModelsHandler),
        ("chat/model", ChatModelHandler),
        ("chat/command", ChatCommandHandler),
        ("chat/commands", ChatCommandsHandler),
        ("chat/providers", ChatProvidersHandler),
        ("chat/providers/test", ChatProviderTestHandler),
    ]
    return [(API_PREFIX + path, handler) for path, handler in table]


def has_connection_routes() -> bool:
    """Whether the connection routes are installed: what `info.SERVED_CAPABILITIES` says as a constant
    (`connection`), checked against the table by the tests."""
    return bool(connection_routes())


def route_table() -> list[Route]:
    """Every route of the extension: the chat routes and the connection routes."""
    return [*chat_routes(), *connection_routes()]
