"""The routes around sessions: info, the session list (rename, delete), models, model switch, commands."""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from pydantic import TypeAdapter
from tornado import web

from prime_jupyter._version import __version__
from prime_jupyter.protocol.chat_commands import ChatCommandRequest, ChatNameCommand
from prime_jupyter.protocol.requests import (
    InfoResponse,
    OkResponse,
    RenameSessionRequest,
    SessionRequest,
    SessionsResponse,
    SetModelRequest,
)
from prime_jupyter.protocol.version import CAP_CONNECTION, CAPABILITIES, PROTOCOL_VERSION, SCHEMA_REVISION
from prime_jupyter.server.chat.commands import run_command
from prime_jupyter.server.http.base import ApiError, PrimeHandler, level_of

__all__ = ["ChatCommandHandler", "ChatModelHandler", "ChatModelsHandler", "ChatSessionsHandler", "InfoHandler"]

COMMAND: TypeAdapter[ChatCommandRequest] = TypeAdapter(ChatCommandRequest)


def capabilities(connection: bool) -> list[str]:
    """What this server offers; the connection capability only when its routes are installed."""
    return [c for c in CAPABILITIES if connection or c != CAP_CONNECTION]


def _has_connection_routes() -> bool:
    from prime_jupyter.server.routes import has_connection_routes  # routes imports this module

    return has_connection_routes()


class InfoHandler(PrimeHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        info = InfoResponse(
            version=__version__,
            protocol_version=PROTOCOL_VERSION,
            schema_revision=SCHEMA_REVISION,
            capabilities=capabilities(_has_connection_routes()),
            kernel=self.bridge.kernels.status,
        )
        self.reply(info)


class ChatSessionsHandler(PrimeHandler):
    """`GET` lists every session; `PATCH` renames one; `DELETE` removes one (body or `?sessionId=`)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        cwd = self.get_query_argument("cwd", None)
        self.reply(SessionsResponse(sessions=await self.bridge.summaries(cwd)))

    @web.authenticated
    @authorized
    async def patch(self) -> None:
        request = self.parse(RenameSessionRequest)
        await self.bridge.rename(request.session_id, request.name)
        self.reply(OkResponse(session_id=request.session_id))

    @web.authenticated
    @authorized
    async def delete(self) -> None:
        session_id = self.optional_session_id() or self.parse(SessionRequest).session_id
        await self.bridge.delete(session_id)
        self.reply(OkResponse(session_id=session_id))


class ChatModelsHandler(PrimeHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.reply(await self.bridge.models(self.optional_session_id()))


class ChatModelHandler(PrimeHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parse(SetModelRequest)
        level = level_of(request.thinking_level)
        live = await self.bridge.get(request.session_id)
        await self.bridge.set_model(live, request.model, level)
        self.reply(OkResponse(session_id=request.session_id))


class ChatCommandHandler(PrimeHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        command = self.parse_as(COMMAND)
        if isinstance(command, ChatNameCommand) and not command.name.strip():
            raise ApiError(400, "name: empty")
        live = await self.bridge.get(command.session_id)
        self.reply(await run_command(live, command, self.bridge.config.sessions_dir))
