"""The chat routes around sessions: the session list (rename, delete), models, model switch, the command
registry, commands."""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from pydantic import TypeAdapter
from tornado import web

from prime_jupyter.protocol.chat_commands import ChatCommandRequest, ChatNameCommand
from prime_jupyter.protocol.requests import (
    OkResponse,
    RenameSessionRequest,
    SessionRequest,
    SessionsResponse,
    SetModelRequest,
)
from prime_jupyter.server.chat.commands import run_command
from prime_jupyter.server.http.base import ApiError, PrimeHandler, level_of

__all__ = ["ChatCommandHandler", "ChatCommandsHandler", "ChatModelHandler", "ChatModelsHandler", "ChatSessionsHandler"]

COMMAND: TypeAdapter[ChatCommandRequest] = TypeAdapter(ChatCommandRequest)


class ChatSessionsHandler(PrimeHandler):
    """`GET` lists every session (`?live=1`: only those open in this server, read from memory: what a
    process asks before it writes a transcript, `connection._held`); `PATCH` renames one; `DELETE`
    removes one (body or `?sessionId=`)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        if self.get_query_argument("live", "") == "1":
            self.reply(SessionsResponse(sessions=self.bridge.live_summaries()))
            return
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


class ChatCommandsHandler(PrimeHandler):
    """`GET ?sessionId=`: the slash commands that session offers (built-in ones, prompt templates, skills,
    extension commands) with descriptions and argument hints; without a session, those a new session in
    the root would offer."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.reply(await self.bridge.commands(self.optional_session_id()))


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
        config = self.bridge.config
        self.reply(await run_command(live, command, config.sessions_dir, config.confined_to))
