"""The connection routes, under `<base_url>prime/api/connection/`: what `HttpAgentConnection` speaks.

`attach` (a snapshot, creating the session when no id is given), `command` (one `Command`, answered
with its result model), `wait` (until the session is idle), `events` (SSE of session events with
`id: <seq>`, replayed from a cursor), `shell` (the user's shell command: `shell.py`) and `run` (attach,
prompt and that run's events in one request, for `jupyter prime attach -p`). The request and
response models are in `prime_jupyter.protocol.connection_routes` (`protocol.shell` for `shell`). Like
every route of the extension they are thin, `@web.authenticated` and `@authorized` (resource `prime`).
"""

from __future__ import annotations

import asyncio
from typing import cast

from jupyter_server.auth.decorator import authorized
from tornado import web

from prime_jupyter._version import __version__
from prime_jupyter.protocol.commands import (
    Command,
    PromptCommand,
    SetModelCommand,
    SetPermissionModeCommand,
    SetThinkingLevelCommand,
)
from prime_jupyter.protocol.connection_routes import (
    CONNECTION_PATH,
    CURSOR_HEADER,
    AttachRequest,
    AttachResponse,
    CommandRequest,
    RunRequest,
    RunStartedMessage,
    WaitRequest,
    WaitResult,
)
from prime_jupyter.protocol.requests import ChatNewRequest
from prime_jupyter.protocol.version import PROTOCOL_VERSION, SCHEMA_REVISION, is_compatible
from prime_jupyter.runtime.views import session_header
from prime_jupyter.server.attach.commands import CommandContext, resolve_session, run_connection_command
from prime_jupyter.server.attach.event_log import ConnectionHub
from prime_jupyter.server.attach.shell import ConnectionShellHandler
from prime_jupyter.server.attach.stream import Outbox, end_with_run, open_outbox, open_run_outbox, pump
from prime_jupyter.server.host.live import LiveSession
from prime_jupyter.server.http.base import ApiError, PrimeHandler, level_of
from prime_jupyter.server.http.streaming import SSE, begin_stream, end_stream
from prime_jupyter.server.info import SERVED_CAPABILITIES

__all__ = [
    "ConnectionAttachHandler",
    "ConnectionCommandHandler",
    "ConnectionEventsHandler",
    "ConnectionRunHandler",
    "ConnectionWaitHandler",
    "connection_routes",
]

HUB_SETTING = "prime_connection_hub"


class _ConnectionHandler(PrimeHandler):
    @property
    def hub(self) -> ConnectionHub:
        """The event logs of this server, made with the first connection request."""
        hub = self.settings.get(HUB_SETTING)
        if hub is None:
            hub = self.settings[HUB_SETTING] = ConnectionHub(4 * self.bridge.config.ring_size)
        return cast(ConnectionHub, hub)


def incompatibility(client_protocol: int) -> str | None:
    """Why a client speaking `client_protocol` cannot use this server, or None when it can."""
    if is_compatible(client_protocol):
        return None
    side = "the client" if client_protocol < PROTOCOL_VERSION else "prime-jupyter on the server"
    return f"this client speaks protocol {client_protocol} and the server protocol {PROTOCOL_VERSION}: upgrade {side}"


class ConnectionAttachHandler(_ConnectionHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parse(AttachRequest)
        refusal = incompatibility(request.client_protocol_version)
        if refusal is not None:
            raise ApiError(409, refusal)
        live = await _target(self, request)
        response = AttachResponse(
            version=__version__,
            protocol_version=PROTOCOL_VERSION,
            schema_revision=SCHEMA_REVISION,
            capabilities=list(SERVED_CAPABILITIES),
            snapshot=self.hub.log_for(live).snapshot(),
        )
        self.reply(response)


async def _target(handler: _ConnectionHandler, request: AttachRequest | RunRequest) -> LiveSession:
    """The session `request.session_id` names, or a new one in `request.cwd` (inside the root)."""
    if request.session_id is not None:
        return await resolve_session(handler.bridge, request.session_id)
    level_of(request.thinking_level)
    new = ChatNewRequest(
        model=request.model, thinking_level=request.thinking_level, permission_mode=request.permission_mode
    )
    return await handler.bridge.create(new, handler.request_cwd(request.cwd))


class ConnectionCommandHandler(_ConnectionHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parse(CommandRequest)
        live = await self.bridge.get(request.session_id)
        log = self.hub.log_for(live)
        result = await run_connection_command(CommandContext(self.bridge, self.hub, live), request.command)
        self.set_header(CURSOR_HEADER, str(log.last_seq))
        self.reply(result)


class ConnectionWaitHandler(_ConnectionHandler):
    """`POST connection/wait`: answers once the session is idle (at once when it is)."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parse(WaitRequest)
        live = await self.bridge.get(request.session_id)
        log = self.hub.log_for(live)
        await live.connection.wait_for_idle()
        self.reply(WaitResult(state=await live.connection.get_state(), cursor=log.last_seq))


class ConnectionEventsHandler(_ConnectionHandler):
    """`GET connection/events`: `connected`, the events after `cursor`, then every new one."""

    _outbox: Outbox | None = None

    @web.authenticated
    @authorized
    async def get(self) -> None:
        session_id = self.query_session_id()
        assert session_id is not None
        cursor = self._cursor()
        log = self.hub.log_for(await self.bridge.get(session_id))
        begin_stream(self, SSE)
        self._outbox = outbox = open_outbox(log, cursor)
        stop = log.listen(outbox.put)
        try:
            await pump(self, outbox, self.bridge.config.heartbeat_interval_s)
        finally:
            stop()
        end_stream(self, SSE)

    def _cursor(self) -> int | None:
        """`cursor`, else `Last-Event-ID`; None when neither is given."""
        raw = self.get_query_argument("cursor", None) or self.request.headers.get("Last-Event-ID")
        if raw is None:
            return None
        try:
            return int(raw)
        except ValueError:
            raise ApiError(400, "cursor: not a number") from None

    def on_connection_close(self) -> None:
        if self._outbox is not None:
            self._outbox.close()


class ConnectionRunHandler(_ConnectionHandler):
    """`POST connection/run`: attach (as `attach` does), start the prompt, then stream the run's session
    events (`RunOutbound`) until the session is idle. Refusals (busy, a bad model) come before the
    stream, as HTTP statuses; a client that goes away leaves the run going."""

    _outbox: Outbox | None = None

    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parse(RunRequest)
        refusal = incompatibility(request.client_protocol_version)
        if refusal is not None:
            raise ApiError(409, refusal)
        live = await _target(self, request)
        log = self.hub.log_for(live)
        context = CommandContext(self.bridge, self.hub, live)
        for command in _run_commands(request):
            await run_connection_command(context, command)
        started = RunStartedMessage(
            version=__version__,
            protocol_version=PROTOCOL_VERSION,
            schema_revision=SCHEMA_REVISION,
            capabilities=list(SERVED_CAPABILITIES),
            session_id=live.session_id,
            header=session_header(live.session.manager),
            cursor=log.last_seq,
        )
        prompt = PromptCommand(message=request.message, images=request.images)
        await run_connection_command(context, prompt)
        begin_stream(self, SSE)
        self._outbox = outbox = open_run_outbox(log, started)
        stop = log.listen(outbox.put)
        ending = asyncio.ensure_future(end_with_run(live, log, outbox))
        try:
            await pump(self, outbox, self.bridge.config.heartbeat_interval_s)
        finally:
            stop()
            ending.cancel()
        end_stream(self, SSE)

    def on_connection_close(self) -> None:
        if self._outbox is not None:
            self._outbox.close()


def _run_commands(request: RunRequest) -> list[Command]:
    """What `run` asks of a session it did not create, before the prompt: its model, thinking level, mode."""
    if request.session_id is None:
        return []
    commands: list[Command] = []
    if request.model is not None:
        commands.append(SetModelCommand(provider=request.model.provider, model_id=request.model.id))
    if request.thinking_level is not None:
        commands.append(SetThinkingLevelCommand(level=request.thinking_level))
    if request.permission_mode is not None:
        commands.append(SetPermissionModeCommand(mode=request.permission_mode))
    return commands


def connection_routes() -> list[tuple[str, type[PrimeHandler]]]:
    table: list[tuple[str, type[PrimeHandler]]] = [
        ("attach", ConnectionAttachHandler),
        ("command", ConnectionCommandHandler),
        ("wait", ConnectionWaitHandler),
        ("events", ConnectionEventsHandler),
        ("shell", ConnectionShellHandler),
        ("run", ConnectionRunHandler),
    ]
    return [(f"/{CONNECTION_PATH}{path}", handler) for path, handler in table]
