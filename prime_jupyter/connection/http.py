"""`HttpAgentConnection`: the seam over a session running in a Jupyter server (design.md D6, D9).

It speaks the connection routes under `<base_url>prime/api/connection/` (`protocol.connection_routes`), over TCP or a
Unix socket, with Jupyter's token. `connect()` first reads `GET prime/api/info`: a server speaking
another protocol, or one without the `connection` capability, is refused before anything else is
sent. The attach answer is a snapshot as of a cursor; from there an `EventFollower` reads the
session's events (SSE), decodes them (`EventDecoder`) and hands them to subscribers as
`SessionEventReceived`, reconnecting from its cursor when the stream drops (`ConnectionStatus`) and
re-attaching when the server asks for a resync (`SessionReplaced` with the fresh snapshot).

New, switch, fork and clone do not replace the session inside the server (it keeps running for its other
clients): the server creates or opens the other session beside it, and this connection follows that
one instead, emits `SessionReplaced`, then runs `after_replace`. Process-local members (extensions,
the abort signal, the synchronous system prompt) raise `AgentConnectionUnsupportedError`, and so do
features the server does not advertise (`new_session.seed_messages`, labels and clones, kernel control),
before anything is sent.
Closing the connection leaves the session running in the server.

This module must not import `prime_jupyter.runtime` (tests/test_layers.py keeps the layers apart).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping
from typing import Literal, NoReturn, TypeVar

from pydantic import BaseModel, JsonValue

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.types import ImageContent
from prime_jupyter.connection._discovery import RunningServer, find_server, running_servers
from prime_jupyter.connection._follower import EventFollower, FollowerHooks
from prime_jupyter.connection._remote import RemoteExtensions, process_local, require_capability
from prime_jupyter.connection._transport import HttpTransport, ServerEndpoint
from prime_jupyter.connection.base import ConnectionExtensions, StreamingBehavior
from prime_jupyter.connection.types import (
    AfterReplace,
    ClientNotice,
    ClientSetEditorText,
    ConnectionEvent,
    ConnectionListener,
    ReplacedClientContext,
    SessionEventReceived,
    SessionReplaced,
)
from prime_jupyter.errors import PrimeError, SessionNotFoundError
from prime_jupyter.protocol import commands as c
from prime_jupyter.protocol.chat_commands import CompactResult, ExportResult
from prime_jupyter.protocol.common import ExportFormat, RewindResult
from prime_jupyter.protocol.connection_routes import CONNECTION_PATH, AttachRequest, AttachResponse, WaitResult
from prime_jupyter.protocol.event_decoder import EventDecoder
from prime_jupyter.protocol.questions import QuestionAnswer
from prime_jupyter.protocol.requests import InfoResponse, ModelRef, ModelsResponse, SeedMessage
from prime_jupyter.protocol.shell import ShellRequest, ShellResult
from prime_jupyter.protocol.snapshot import (
    AttachSnapshot,
    ConnectionState,
    MessagesResult,
    NavigateResult,
    OkResult,
    PromptResult,
    QueueResult,
    ReplacedResult,
    SessionsResult,
    SessionView,
)
from prime_jupyter.protocol.version import (
    CAP_CONNECTION,
    CAP_EXPORT_IPYNB,
    CAP_KERNEL_CONTROL,
    CAP_REWIND,
    CAP_SEED_MESSAGES,
    CAP_TREE_EDITS,
    PROTOCOL_VERSION,
    SCHEMA_REVISION,
    is_compatible,
)
from prime_jupyter.protocol.wire import dump

__all__ = ["HttpAgentConnection", "RunningServer", "ServerEndpoint", "find_server", "running_servers"]

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)


class HttpAgentConnection:
    def __init__(self, transport: HttpTransport, attached: AttachResponse, reconnect_window_s: float = 60.0) -> None:
        self.server_version = attached.version
        self.capabilities = frozenset(attached.capabilities)
        self._transport = transport
        self._window = reconnect_window_s
        self._listeners: list[ConnectionListener] = []
        self._extensions = RemoteExtensions()
        self._decoder = EventDecoder()
        self._session_id = attached.snapshot.state.session_id
        self._follower = self._follow(attached.snapshot)

    @classmethod
    async def connect(
        cls,
        endpoint: ServerEndpoint,
        session: str | None = None,
        *,
        cwd: str | None = None,
        model: ModelRef | None = None,
        thinking_level: str | None = None,
        permission_mode: str | None = None,
        reconnect_window_s: float = 60.0,
        stream_idle_timeout_s: float = 90.0,
    ) -> HttpAgentConnection:
        """Attach to `session` (an id or unique id prefix), or to a new session in `cwd` (relative to
        the server's root; its root when None) with `model`, `thinking_level` and `permission_mode`."""
        transport = HttpTransport(endpoint, stream_idle_timeout_s)
        try:
            _check_server(await transport.get("prime/api/info", InfoResponse), endpoint.display)
            request = AttachRequest(
                session_id=session,
                cwd=cwd,
                model=model,
                thinking_level=thinking_level,
                permission_mode=permission_mode,
                **_CLIENT,
            )
            attached, _ = await transport.post(CONNECTION_PATH + "attach", dump(request), AttachResponse)
        except BaseException:
            await transport.aclose()
            raise
        return cls(transport, attached, reconnect_window_s)

    @property
    def session_id(self) -> str:
        return self._session_id

    # --- events ---------------------------------------------------------------------------------

    def subscribe(self, listener: ConnectionListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, event: ConnectionEvent) -> None:
        for listener in tuple(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("a connection listener failed on %s", event.type)

    def _follow(self, snap: AttachSnapshot) -> EventFollower:
        self._reset_decoder(snap)
        hooks = FollowerHooks(on_event=self._on_wire_event, on_resync=self._resync, on_status=self._emit)
        return EventFollower(self._transport, snap.state.session_id, snap.cursor, hooks, self._window)

    def _reset_decoder(self, snap: AttachSnapshot) -> None:
        """A decoder for the stream after `snap`: the message being streamed continues from the snapshot."""
        self._decoder = EventDecoder()
        if snap.streaming_message is not None:
            self._decoder.decode({"type": "message_start", "message": dump(snap.streaming_message)})

    def _on_wire_event(self, data: Mapping[str, JsonValue], seq: int | None) -> None:
        event = self._decoder.decode(data)
        if event is not None:  # None: a type this client does not know (a newer server)
            self._emit(SessionEventReceived(event, seq))

    async def _resync(self) -> int:
        snap = await self.get_snapshot()
        self._reset_decoder(snap)
        self._emit(SessionReplaced(snap))
        return snap.cursor

    async def dispose(self) -> None:
        """Stop following the session and close the client; the session keeps running in the server."""
        await self._follower.stop()
        await self._transport.aclose()

    # --- requests -------------------------------------------------------------------------------

    async def _command(self, command: c.Command, result: type[M]) -> tuple[M, int | None]:
        body: dict[str, JsonValue] = {"sessionId": self._session_id, "command": _command_json(command)}
        return await self._transport.post(CONNECTION_PATH + "command", body, result)

    async def _ask(self, command: c.Command, result: type[M]) -> M:
        return (await self._command(command, result))[0]

    # --- reads ----------------------------------------------------------------------------------

    async def get_state(self) -> ConnectionState:
        return await self._ask(c.GetStateCommand(), ConnectionState)

    async def get_snapshot(self, tail: int | None = None) -> AttachSnapshot:
        del tail  # the server's attach sends the whole branch: a hint a snapshot may ignore (see base.py)
        request = AttachRequest(session_id=self._session_id, **_CLIENT)
        attached, _ = await self._transport.post(CONNECTION_PATH + "attach", dump(request), AttachResponse)
        return attached.snapshot

    async def get_messages(self) -> MessagesResult:
        return await self._ask(c.GetMessagesCommand(), MessagesResult)

    async def get_session_view(self) -> SessionView:
        return await self._ask(c.GetSessionViewCommand(), SessionView)

    async def get_available_models(self) -> ModelsResponse:
        return await self._transport.get("prime/api/chat/models", ModelsResponse, {"sessionId": self._session_id})

    async def list_sessions(self, scope: Literal["current", "all"] = "current") -> SessionsResult:
        return await self._ask(c.ListSessionsCommand(scope=scope), SessionsResult)

    # --- prompting ------------------------------------------------------------------------------

    async def prompt(
        self,
        message: str,
        images: list[ImageContent] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
    ) -> PromptResult:
        command = c.PromptCommand(message=message, images=images or [], streaming_behavior=streaming_behavior)
        return await self._ask(command, PromptResult)

    async def steer(self, message: str, images: list[ImageContent] | None = None) -> PromptResult:
        return await self._ask(c.SteerCommand(message=message, images=images or []), PromptResult)

    async def follow_up(self, message: str, images: list[ImageContent] | None = None) -> PromptResult:
        return await self._ask(c.FollowUpCommand(message=message, images=images or []), PromptResult)

    async def abort(self) -> None:
        """Stop the run; returns once it stopped and its last events were delivered."""
        _, cursor = await self._command(c.AbortCommand(), OkResult)
        if cursor is not None:
            await self._follower.reached(cursor)

    async def wait_for_idle(self) -> None:
        """Return once the session is idle and every event of its run was delivered."""
        body: dict[str, JsonValue] = {"sessionId": self._session_id}
        result, _ = await self._transport.post(CONNECTION_PATH + "wait", body, WaitResult)
        await self._follower.reached(result.cursor)

    async def get_queue(self) -> QueueResult:
        state = await self.get_state()
        return QueueResult(steering=state.steering, follow_up=state.follow_up)

    async def clear_queue(self) -> QueueResult:
        return await self._ask(c.ClearQueueCommand(), QueueResult)

    # --- model and context ----------------------------------------------------------------------

    async def set_model(self, provider: str, model_id: str) -> None:
        await self._ask(c.SetModelCommand(provider=provider, model_id=model_id), OkResult)

    async def set_thinking_level(self, level: str) -> None:
        await self._ask(c.SetThinkingLevelCommand(level=level), OkResult)

    async def set_permission_mode(self, mode: str) -> None:
        await self._ask(c.SetPermissionModeCommand(mode=mode), OkResult)

    async def compact(self, custom_instructions: str | None = None) -> CompactResult:
        return await self._ask(c.CompactCommand(custom_instructions=custom_instructions), CompactResult)

    # --- sessions -------------------------------------------------------------------------------

    async def new_session(
        self, seed_messages: list[SeedMessage] | None = None, after_replace: AfterReplace | None = None
    ) -> ReplacedResult:
        if seed_messages:
            require_capability(CAP_SEED_MESSAGES, self.capabilities, "new_session.seed_messages", self._server_name())
        result = await self._ask(c.NewSessionCommand(seed_messages=seed_messages or []), ReplacedResult)
        return await self._replace(result, after_replace)

    async def switch_session(self, session: str, after_replace: AfterReplace | None = None) -> ReplacedResult:
        result = await self._ask(c.SwitchSessionCommand(session=session), ReplacedResult)
        return await self._replace(result, after_replace)

    async def fork(
        self, entry_id: str, position: Literal["before", "at"] = "before", after_replace: AfterReplace | None = None
    ) -> ReplacedResult:
        result = await self._ask(c.ForkCommand(entry_id=entry_id, position=position), ReplacedResult)
        replaced = await self._replace(result, after_replace)
        if replaced.selected_text:
            self._emit(ClientSetEditorText(replaced.selected_text))
        return replaced

    async def navigate_tree(
        self, target_id: str, summarize: bool = False, custom_instructions: str | None = None
    ) -> NavigateResult:
        command = c.NavigateTreeCommand(
            target_id=target_id, summarize=summarize, custom_instructions=custom_instructions
        )
        return await self._ask(command, NavigateResult)

    async def rewind(self, entry_id: str) -> RewindResult:
        require_capability(CAP_REWIND, self.capabilities, "rewind", self._server_name())
        return await self._ask(c.RewindCommand(entry_id=entry_id), RewindResult)

    async def rename_session(self, name: str, session_id: str | None = None) -> None:
        await self._ask(c.RenameSessionCommand(name=name, session_id=session_id), OkResult)

    async def delete_session(self, session_id: str) -> None:
        await self._ask(c.DeleteSessionCommand(session_id=session_id), OkResult)

    async def export(self, fmt: ExportFormat = "html", path: str | None = None) -> ExportResult:
        if fmt == "ipynb":  # an older server would refuse the format with a validation error
            require_capability(CAP_EXPORT_IPYNB, self.capabilities, "export.ipynb", self._server_name())
        return await self._ask(c.ExportCommand(format=fmt, path=path), ExportResult)

    # --- the session tree and the kernel (the terminal app's /tree, /clone and /kernel) -------------

    async def set_label(self, entry_id: str, label: str | None) -> None:
        require_capability(CAP_TREE_EDITS, self.capabilities, "set_label", self._server_name())
        await self._ask(c.SetLabelCommand(entry_id=entry_id, label=label), OkResult)

    async def clone(self, after_replace: AfterReplace | None = None) -> ReplacedResult:
        require_capability(CAP_TREE_EDITS, self.capabilities, "clone", self._server_name())
        result = await self._ask(c.CloneSessionCommand(), ReplacedResult)
        return await self._replace(result, after_replace)

    async def interrupt_kernel(self) -> None:
        require_capability(CAP_KERNEL_CONTROL, self.capabilities, "interrupt_kernel", self._server_name())
        await self._ask(c.InterruptKernelCommand(), OkResult)

    async def restart_kernel(self) -> None:
        require_capability(CAP_KERNEL_CONTROL, self.capabilities, "restart_kernel", self._server_name())
        await self._ask(c.RestartKernelCommand(), OkResult)

    # --- questions ------------------------------------------------------------------------------

    async def answer_question(self, question_id: str, answer: QuestionAnswer | None) -> bool:
        """False when the question is no longer pending (answered, timed out, or its session gone)."""
        try:
            await self._ask(c.AnswerQuestionCommand(question_id=question_id, answer=answer), OkResult)
        except SessionNotFoundError:
            return False
        return True

    # --- the user's shell commands (`!cmd`) -----------------------------------------------------

    async def run_shell(
        self, command: str, include_in_context: bool = True, execution_id: str | None = None
    ) -> ShellResult:
        """Run `command` in the session's directory in the server (inside its root). Its events come on the
        events stream while the request waits for its end (from a server with `shell-events`; an older one
        ignores the id and sends none)."""
        request = ShellRequest(
            session_id=self._session_id,
            command=command,
            include_in_context=include_in_context,
            execution_id=execution_id,
        )
        result, _ = await self._transport.post(CONNECTION_PATH + "shell", dump(request), ShellResult)
        return result

    # --- process-local --------------------------------------------------------------------------

    @property
    def extensions(self) -> ConnectionExtensions:
        return self._extensions

    def get_abort_signal(self) -> AbortSignal | None:
        process_local("get_abort_signal")

    def get_system_prompt_sync(self) -> str:
        process_local("get_system_prompt_sync")

    def _server_name(self) -> str:
        return f"the server at {self._transport.endpoint.display}"

    # --- replacement ----------------------------------------------------------------------------

    async def _replace(self, result: ReplacedResult, after_replace: AfterReplace | None) -> ReplacedResult:
        """Follow the session the server answered with, tell subscribers, then run the hook."""
        snap = result.snapshot
        if result.cancelled or snap is None:
            return result
        await self._follower.stop()
        self._session_id = snap.state.session_id
        self._follower = self._follow(snap)
        self._emit(SessionReplaced(snap))
        if after_replace is not None:
            outcome = after_replace(self._client_context())
            if inspect.isawaitable(outcome):
                await outcome
        return result

    def _client_context(self) -> ReplacedClientContext:
        return ReplacedClientContext(
            send_user_message=lambda text: self.prompt(text),
            notify=lambda message, level: self._emit(ClientNotice(message, _level(level))),
            set_editor_text=lambda text: self._emit(ClientSetEditorText(text)),
        )


_CLIENT: dict[str, int] = {"client_protocol_version": PROTOCOL_VERSION, "client_schema_revision": SCHEMA_REVISION}


def _check_server(info: InfoResponse, where: str) -> None:
    """Refuse a server this client cannot speak to, before anything is sent to it."""
    if not is_compatible(info.protocol_version):
        _incompatible(info.protocol_version, where)
    server = f"the server at {where} (prime-jupyter {info.version})"
    require_capability(CAP_CONNECTION, info.capabilities, "connection", server)


def _incompatible(server_protocol: int, where: str) -> NoReturn:
    side = "prime-jupyter on the server" if server_protocol < PROTOCOL_VERSION else "this client (prime-jupyter)"
    raise PrimeError(
        f"the server at {where} speaks protocol {server_protocol} and this client protocol {PROTOCOL_VERSION}: "
        f"upgrade {side}"
    )


def _command_json(command: c.Command) -> JsonValue:
    data = dump(command)
    if isinstance(command, c.NewSessionCommand) and not command.seed_messages:
        data.pop("seedMessages", None)  # a bare new_session never sends the key (an old server ignores it)
    return data


def _level(level: str) -> Literal["info", "warning", "error"]:
    return "warning" if level == "warning" else "error" if level == "error" else "info"
