"""`jupyter prime --mode acp` and `jupyter prime attach --mode acp`: the agent over the Agent Client Protocol.

An editor (Zed, Toad, jupyter-ai, ...) spawns this process and speaks ACP (protocol version 1, JSON-RPC on
stdin/stdout) through the `agent-client-protocol` package. Each ACP session is one `AgentConnection`:
run in this process (`--mode acp`), or a session living in a running Jupyter server (`attach --mode acp`),
which the JupyterLab panel can follow and drive at the same time.

The mapping (upstream.md §8.5): the session's events become `session/update` notifications (message and
thought chunks, tool calls and their updates, the permission mode, usage); a pending approval (a `select`
question tied to a tool call) becomes `session/request_permission`, answered through the connection;
`session/load` replays the transcript. The agent's own tools do all the file work: nothing is asked of the
client's `fs` or `terminal`.

The protocol owns stdout (`stdio.protocol_streams`): nothing else can write into the protocol's stream.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import acp
from acp import schema

from prime_jupyter.ai.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
)
from prime_jupyter.connection import LocalTarget, ServerTarget, open_connection
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.types import AgentConnectionUnsupportedError, ConnectionEvent, SessionEventReceived
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.events import (
    AgentEnd,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    PermissionModeChanged,
    QuestionAsked,
    QuestionResolved,
    SessionEvent,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolOutput,
)
from prime_jupyter.protocol.questions import ConfirmAnswer, Question, QuestionAnswer, SelectAnswer

from .args import PERMISSION_MODE_CHOICES
from .stdio import protocol_streams

__all__ = ["AcpAgent", "serve"]

log = logging.getLogger("prime_jupyter.cli.acp")

MODE_NAMES = {
    "ask": ("Ask", "code, commands and file changes ask first"),
    "accept-edits": ("Accept edits", "file changes go through; code and commands ask first"),
    "plan": ("Plan", "only read-only tools"),
    "auto": ("Auto", "nothing asks"),
}

TOOL_KINDS: dict[str, schema.ToolKind] = {
    "ipython": "execute",
    "bash": "execute",
    "notebook_run": "execute",
    "write": "edit",
    "edit": "edit",
    "notebook_edit": "edit",
    "read": "read",
    "notebook_read": "read",
    "ask": "think",
}

PERMISSION_KINDS: dict[str, schema.PermissionOptionKind] = {
    "allow_once": "allow_once",
    "allow_always": "allow_always",
    "reject_once": "reject_once",
    "reject_always": "reject_always",
}
"""The approval options (`runtime.approvals`) by id, as ACP's option kinds."""

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")

COMMANDS = ("model", "thinking", "mode", "name", "compact")
"""The connection's commands this front end carries out when a prompt is `/name args`."""

REFUSED = "the model refused to answer"
"""The error of an assistant message the provider ended with its `refusal` stop reason."""

TargetFactory = Callable[[Path, str | None], "LocalTarget | ServerTarget"]
"""Builds the target of `session/new` (no session id) or `session/load` (that id) in the client's cwd."""


class _Session:
    """One ACP session: its connection, the updates on their way to the client, the prompt running."""

    def __init__(self, session_id: str, connection: AgentConnection, client: acp.Client) -> None:
        self.id = session_id
        self.connection = connection
        self.client = client
        self.cwd = ""
        self._events: asyncio.Queue[SessionEvent] = asyncio.Queue()
        self._turn: asyncio.Future[AssistantMessage | None] | None = None
        self._own_prompt = False
        self.cancelled = False
        self._tools: dict[str, tuple[str, dict[str, Any]]] = {}
        self._started: set[str] = set()
        self._asking: dict[str, asyncio.Task[None]] = {}
        self._pump = asyncio.create_task(self._run())
        self._unsubscribe = connection.subscribe(self._on_event)

    def _on_event(self, event: ConnectionEvent) -> None:
        if isinstance(event, SessionEventReceived):
            self._events.put_nowait(event.event)

    async def prompt(self, text: str, images: list[ImageContent]) -> AssistantMessage | None:
        """Run one prompt; the last assistant message once every update before its end was sent."""
        loop = asyncio.get_running_loop()
        self._turn = turn = loop.create_future()
        self._own_prompt = True
        self.cancelled = False
        state = await self.connection.get_state()
        await self.connection.prompt(text, images or None, "follow_up" if state.is_streaming else None)
        final: AssistantMessage | None = await turn
        return final

    async def send(self, update: Any) -> None:
        await self.client.session_update(session_id=self.id, update=update)

    async def close(self) -> None:
        self._unsubscribe()
        self._pump.cancel()
        for task in self._asking.values():
            task.cancel()
        await self.connection.dispose()

    async def _run(self) -> None:
        while True:
            event = await self._events.get()
            try:
                await self._forward(event)
            except Exception:  # a client gone or a bad update: say so, keep serving the session
                log.exception("acp: could not forward %s", event.type)

    async def _forward(self, event: SessionEvent) -> None:
        if isinstance(event, MessageUpdate):
            kind = event.assistant_message_event.type
            delta = getattr(event.assistant_message_event, "delta", "")
            if kind == "text_delta" and delta:
                await self.send(acp.update_agent_message_text(delta))
            elif kind == "thinking_delta" and delta:
                await self.send(acp.update_agent_thought_text(delta))
        elif isinstance(event, MessageStart) and event.message.role == "user":
            if self._own_prompt:
                self._own_prompt = False  # the client's own prompt: it shows it already
            else:  # a prompt from elsewhere (the panel, on a session in a server)
                for block in _user_blocks(event.message.content):
                    await self.send(acp.update_user_message(block))
        elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            if event.message.stop_reason == "error" and event.message.error_message:
                if event.message.error_message != REFUSED:
                    await self.send(acp.update_agent_message_text(f"\n\nerror: {event.message.error_message}"))
        elif isinstance(event, ToolExecutionStart):
            self._tools[event.tool_call_id] = (event.tool_name, dict(event.args))
            await self.send(_tool_call_start(event.tool_call_id, event.tool_name, dict(event.args), "pending"))
        elif isinstance(event, ToolExecutionUpdate):
            await self.send(
                acp.update_tool_call(
                    event.tool_call_id, status="in_progress", content=_output_content(event.partial_result)
                )
            )
        elif isinstance(event, ToolExecutionEnd):
            self._tools.pop(event.tool_call_id, None)
            await self.send(
                acp.update_tool_call(
                    event.tool_call_id,
                    status="failed" if event.is_error else "completed",
                    content=_output_content(event.result),
                    raw_output=event.result.details,
                )
            )
        elif isinstance(event, QuestionAsked):
            self._asking[event.question.id] = asyncio.create_task(self._ask(event.question))
        elif isinstance(event, QuestionResolved):
            asking = self._asking.pop(event.id, None)
            if asking is not None and not asking.done():
                asking.cancel()  # answered elsewhere (the panel), or cancelled by an abort
        elif isinstance(event, PermissionModeChanged):
            await self.send(schema.CurrentModeUpdate(session_update="current_mode_update", current_mode_id=event.mode))
        elif isinstance(event, AgentEnd):
            final = next((m for m in reversed(event.messages) if isinstance(m, AssistantMessage)), None)
            await self._send_usage()
            if self._turn is not None and not self._turn.done():
                self._turn.set_result(final)

    async def _send_usage(self) -> None:
        state = await self.connection.get_state()
        if state.context_window is None:
            return
        cost = state.usage.cost.total if state.usage is not None else None
        await self.send(
            schema.UsageUpdate(
                session_update="usage_update",
                used=state.context_tokens or 0,
                size=state.context_window,
                cost=schema.Cost(amount=cost, currency="USD") if cost is not None else None,
            )
        )

    async def _ask(self, question: Question) -> None:
        """A pending question as `session/request_permission`; the choice goes back as its answer."""
        options = _permission_options(question)
        if not options:  # an `input` question: ACP's permission request cannot carry typed text
            log.info("acp: question %r dismissed: the client cannot be asked to type an answer", question.title)
            await self.connection.answer_question(question.id, None)
            return
        call_id = question.tool_call_id or next(
            (cid for cid, (name, _) in self._tools.items() if name == "ask"), question.id
        )
        tool_call = schema.ToolCallUpdate(
            tool_call_id=call_id, title=question.title if question.message is None else question.message
        )
        if question.tool_call_id in self._tools:
            name, args = self._tools[question.tool_call_id]
            tool_call.title = _title(name, args)
            tool_call.kind = TOOL_KINDS.get(name, "other")
            tool_call.raw_input = args
        response = await self.client.request_permission(session_id=self.id, tool_call=tool_call, options=options)
        self._asking.pop(question.id, None)
        outcome = response.outcome
        answer: QuestionAnswer | None = None
        if isinstance(outcome, schema.AllowedOutcome):
            if question.kind == "confirm":
                answer = ConfirmAnswer(confirmed=outcome.option_id == "yes")
            else:
                answer = SelectAnswer(option_ids=[outcome.option_id])
        await self.connection.answer_question(question.id, answer)


def _permission_options(question: Question) -> list[schema.PermissionOption]:
    if question.kind == "confirm":
        return [
            schema.PermissionOption(option_id="yes", name="Yes", kind="allow_once"),
            schema.PermissionOption(option_id="no", name="No", kind="reject_once"),
        ]
    if question.kind != "select":
        return []
    return [
        schema.PermissionOption(
            option_id=o.id,
            name=o.label,
            kind=PERMISSION_KINDS.get(o.id, "allow_once"),
        )
        for o in question.options
    ]


def _title(name: str, args: dict[str, Any]) -> str:
    """What a tool call's card says: the code's first line, the command, the file."""
    if name == "ipython":
        lines = str(args.get("code", "")).strip().splitlines()
        return f"ipython: {lines[0]}" + (" …" if len(lines) > 1 else "") if lines else "ipython"
    if name == "bash":
        return f"$ {args.get('command', '')}"
    path = args.get("path")
    return f"{name} {path}" if isinstance(path, str) else name


def _tool_call_start(call_id: str, name: str, args: dict[str, Any], status: schema.ToolCallStatus) -> Any:
    path = args.get("path")
    locations = [schema.ToolCallLocation(path=path)] if isinstance(path, str) else None
    return acp.start_tool_call(
        call_id,
        _title(name, args),
        kind=TOOL_KINDS.get(name, "other"),
        status=status,
        content=_diffs(name, args) or None,
        locations=locations,
        raw_input=args,
    )


def _diffs(name: str, args: dict[str, Any]) -> list[schema.FileEditToolCallContent]:
    """The file changes a `write`, `edit` or `notebook_edit` call asks for, as ACP diffs."""
    path = args.get("path")
    if not isinstance(path, str):
        return []
    if name == "write" and isinstance(args.get("content"), str):
        return [acp.tool_diff_content(path, args["content"])]
    edits = args.get("edits")
    if not isinstance(edits, list):
        return []
    diffs = []
    for edit in edits:
        if not isinstance(edit, dict):
            continue
        if name == "edit" and isinstance(edit.get("newText"), str):
            old = edit.get("oldText")
            diffs.append(acp.tool_diff_content(path, edit["newText"], old if isinstance(old, str) else None))
        elif name == "notebook_edit" and isinstance(edit.get("source"), str):
            diffs.append(acp.tool_diff_content(path, edit["source"]))
    return diffs


def _output_content(output: ToolOutput) -> list[schema.ContentToolCallContent]:
    """A tool's output: its text and its images (an `ipython` plot travels as image content), those the
    model saw and those only its front ends get (`details`: every output, for a model without images too)."""
    content = []
    shown: set[str] = set()
    for block in output.content:
        if isinstance(block, ImageContent):
            shown.add(block.data)
            content.append(acp.tool_content(acp.image_block(block.data, block.mime_type)))
        elif block.text:
            content.append(acp.tool_content(acp.text_block(block.text)))
    for mime_type, data in _detail_images(output.details):
        if data not in shown:
            shown.add(data)
            content.append(acp.tool_content(acp.image_block(data, mime_type)))
    return content


def _detail_images(details: object) -> list[tuple[str, str]]:
    """(mime type, base64) of the images among a tool's outputs (`ipython`'s `outputs`, `notebook_run`'s
    `cells[].outputs`), in nbformat shape."""
    if not isinstance(details, dict):
        return []
    outputs = list(details.get("outputs") or [])
    for cell in details.get("cells") or []:
        if isinstance(cell, dict) and isinstance(cell.get("outputs"), list):
            outputs.extend(cell["outputs"])
    found = []
    for output in outputs:
        data = output.get("data") if isinstance(output, dict) else None
        if not isinstance(data, dict):
            continue
        mime_type = next((m for m in IMAGE_TYPES if isinstance(data.get(m), str)), None)
        if mime_type is not None:
            found.append((mime_type, "".join(str(data[mime_type]).split())))
    return found


def _user_blocks(content: object) -> list[Any]:
    if isinstance(content, str):
        return [acp.text_block(content)]
    blocks: list[Any] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, TextContent):
            blocks.append(acp.text_block(block.text))
        elif isinstance(block, ImageContent):
            blocks.append(acp.image_block(block.data, block.mime_type))
    return blocks


def _prompt_input(blocks: list[Any]) -> tuple[str, list[ImageContent]]:
    """ACP prompt blocks as the session's prompt: text (embedded resources inlined), and images."""
    parts: list[str] = []
    images: list[ImageContent] = []
    for block in blocks:
        if isinstance(block, schema.TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, schema.ImageContentBlock):
            images.append(ImageContent(data=block.data, mime_type=block.mime_type))
        elif isinstance(block, schema.ResourceContentBlock):
            parts.append(f"@{block.uri}")
        elif isinstance(block, schema.EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, schema.TextResourceContents):
                parts.append(f'<file uri="{resource.uri}">\n{resource.text}\n</file>')
            else:
                parts.append(f"@{resource.uri}")
        else:
            log.info("acp: a %s block of the prompt was left out (not supported)", type(block).__name__)
    return "\n".join(parts), images


def _stop_reason(final: AssistantMessage | None, cancelled: bool) -> schema.StopReason:
    if cancelled or (final is not None and final.stop_reason == "aborted"):
        return "cancelled"
    if final is None:
        raise acp.RequestError.internal_error({"message": "the run produced no answer"})
    if final.stop_reason == "length":
        return "max_tokens"
    if final.stop_reason == "error":
        if final.error_message == REFUSED:
            return "refusal"
        raise acp.RequestError.internal_error({"message": final.error_message or "the run failed"})
    return "end_turn"


class AcpAgent:
    """The ACP agent: sessions made by `target` (run here, or in a Jupyter server)."""

    def __init__(self, target: TargetFactory, *, can_list: bool) -> None:
        self._target = target
        self._can_list = can_list
        self._sessions: dict[str, _Session] = {}
        self._client: acp.Client | None = None

    def on_connect(self, conn: acp.Client) -> None:
        self._client = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> schema.InitializeResponse:
        from prime_jupyter._version import __version__

        capabilities = schema.AgentCapabilities(
            load_session=True,
            prompt_capabilities=schema.PromptCapabilities(image=True, embedded_context=True),
            session_capabilities=schema.SessionCapabilities(list=schema.SessionListCapabilities())
            if self._can_list
            else None,
        )
        return schema.InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=capabilities,
            agent_info=schema.Implementation(name="prime-jupyter", title="Prime (Jupyter)", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> schema.AuthenticateResponse:
        return schema.AuthenticateResponse()

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any) -> Any:
        session = await self._open(cwd, None, mcp_servers)
        return schema.NewSessionResponse(session_id=session.id, modes=await self._modes(session))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any) -> Any:
        if session_id in self._sessions:
            await self._sessions.pop(session_id).close()
        session = await self._open(cwd, session_id, mcp_servers)
        await _replay(session)
        return schema.LoadSessionResponse(modes=await self._modes(session))

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any) -> Any:
        from prime_jupyter.connection.in_process import saved_sessions

        found = await asyncio.to_thread(saved_sessions, Path(cwd) if cwd else None)
        return schema.ListSessionsResponse(
            sessions=[
                schema.SessionInfo(
                    session_id=s.session_id,
                    cwd=s.cwd,
                    title=s.name or s.title,
                    updated_at=_iso(s.updated_at),
                )
                for s in found.sessions
            ]
        )

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> schema.SetSessionModeResponse:
        session = self._session(session_id)
        try:
            await session.connection.set_permission_mode(mode_id)
        except (ValueError, PrimeError) as exc:
            raise acp.RequestError.invalid_params({"modeId": mode_id, "message": str(exc)}) from exc
        return schema.SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> schema.PromptResponse:
        session = self._session(session_id)
        text, images = _prompt_input(prompt)
        if text.startswith("/") and not images and await _command(session, text):
            return schema.PromptResponse(stop_reason="end_turn")
        try:
            final = await session.prompt(text, images)
        except PrimeError as exc:
            raise acp.RequestError.internal_error({"message": str(exc)}) from exc
        return schema.PromptResponse(stop_reason=_stop_reason(final, session.cancelled))

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        if session is None:
            return
        session.cancelled = True
        await session.connection.abort()

    async def close_session(self, session_id: str, **kwargs: Any) -> schema.CloseSessionResponse:
        session = self._sessions.pop(session_id, None)
        if session is not None:
            await session.close()
        return schema.CloseSessionResponse()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise acp.RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    async def close(self) -> None:
        for session in list(self._sessions.values()):
            await session.close()
        self._sessions.clear()

    def _session(self, session_id: str) -> _Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise acp.RequestError.invalid_params({"sessionId": session_id, "message": "no such session here"})
        return session

    async def _open(self, cwd: str, session_id: str | None, mcp_servers: list[Any] | None) -> _Session:
        assert self._client is not None, "the client connects before it asks for a session"
        if mcp_servers:
            names = ", ".join(getattr(s, "name", "?") for s in mcp_servers)
            log.warning("acp: MCP servers from the client are not used yet: %s", names)
        if not await asyncio.to_thread(os.path.isdir, cwd):
            raise acp.RequestError.invalid_params({"cwd": cwd, "message": "cwd is not a directory here"})
        try:
            connection = await open_connection(self._target(Path(cwd), session_id))
        except PrimeError as exc:
            raise acp.RequestError.invalid_params({"message": str(exc)}) from exc
        state = await connection.get_state()
        session = _Session(state.session_id, connection, self._client)
        session.cwd = state.cwd
        self._sessions[session.id] = session
        asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(_send_commands(session)))
        return session

    async def _modes(self, session: _Session) -> schema.SessionModeState:
        state = await session.connection.get_state()
        allowed = [
            m
            for m in PERMISSION_MODE_CHOICES
            if not state.allowed_permission_modes or m in state.allowed_permission_modes
        ]
        return schema.SessionModeState(
            current_mode_id=state.permission_mode or "ask",
            available_modes=[
                schema.SessionMode(id=m, name=MODE_NAMES[m][0], description=MODE_NAMES[m][1]) for m in allowed
            ],
        )


async def _send_commands(session: _Session) -> None:
    """`available_commands_update`: the connection's commands this front end carries out."""
    try:
        listed = session.connection.extensions.commands()
    except AgentConnectionUnsupportedError:  # a session in a server: the built-in ones
        from prime_jupyter.connection.extensions import BUILTIN_COMMANDS

        listed = list(BUILTIN_COMMANDS)
    commands = [
        schema.AvailableCommand(
            name=c.name,
            description=c.description,
            input=schema.UnstructuredCommandInput(hint=c.arguments) if c.arguments else None,
        )
        for c in listed
        if c.name in COMMANDS
    ]
    try:
        await session.send(
            schema.AvailableCommandsUpdate(session_update="available_commands_update", available_commands=commands)
        )
    except Exception:
        log.exception("acp: could not send the commands")


async def _command(session: _Session, text: str) -> bool:
    """Carry out `/name args` when it is one of `COMMANDS`; False for any other prompt."""
    name, _, rest = text[1:].partition(" ")
    rest = rest.strip()
    if name not in COMMANDS:
        return False
    connection = session.connection
    try:
        if name == "model":
            provider, _, model_id = rest.partition("/")
            if not model_id:
                raise ValueError("name the model as provider/id")
            await connection.set_model(provider, model_id)
            said = f"model: {provider}/{model_id}"
        elif name == "thinking":
            await connection.set_thinking_level(rest)
            said = f"thinking level: {rest}"
        elif name == "mode":
            await connection.set_permission_mode(rest)
            said = f"permission mode: {rest}"
        elif name == "name":
            await connection.rename_session(rest)
            said = f"session named {rest!r}"
        else:
            result = await connection.compact(rest or None)
            said = f"compacted ({result.tokens_before} tokens before)"
    except (ValueError, PrimeError) as exc:
        said = f"/{name}: {exc}"
    await session.send(acp.update_agent_message_text(said))
    return True


async def _replay(session: _Session) -> None:
    """The transcript as the client would have seen it live: user and agent chunks, tool calls."""
    messages = (await session.connection.get_messages()).messages
    calls: dict[str, ToolCall] = {}
    for message in messages:
        if message.role == "user":
            for block in _user_blocks(message.content):
                await session.send(acp.update_user_message(block))
        elif isinstance(message, AssistantMessage):
            for part in message.content:
                if isinstance(part, TextContent) and part.text:
                    await session.send(acp.update_agent_message_text(part.text))
                elif isinstance(part, ToolCall):
                    calls[part.id] = part
                    await session.send(_tool_call_start(part.id, part.name, dict(part.arguments), "pending"))
                elif isinstance(part, ThinkingContent) and part.thinking:
                    await session.send(acp.update_agent_thought_text(part.thinking))
        elif isinstance(message, ToolResultMessage):
            output = ToolOutput(content=list(message.content), details=message.details)
            status: schema.ToolCallStatus = "failed" if message.is_error else "completed"
            await session.send(
                acp.update_tool_call(message.tool_call_id, status=status, content=_output_content(output))
            )


def _iso(ms: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat().replace("+00:00", "Z")


async def _serve(agent: AcpAgent) -> None:
    reader, writer = await protocol_streams()
    try:
        # the SDK's `Agent` protocol lists every optional method; the ones left out here answer "not found"
        await acp.run_agent(cast(acp.Agent, agent), input_stream=writer, output_stream=reader)
    finally:
        await agent.close()


def serve(target: TargetFactory, *, can_list: bool) -> int:
    """Serve ACP on stdin/stdout until the client closes stdin; the exit code."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="prime acp: %(message)s")
    asyncio.run(_serve(AcpAgent(target, can_list=can_list)))
    return 0


def local_target(base: LocalTarget) -> TargetFactory:
    """`--mode acp`: every session runs in this process, as `base` says (model, tools, permission mode)."""

    def target(cwd: Path, session_id: str | None) -> LocalTarget:
        return dataclasses.replace(
            base, cwd=cwd, mode="resume" if session_id else "new", resume=session_id, interactive=True
        )

    return target


def server_target(base: ServerTarget) -> TargetFactory:
    """`attach --mode acp`: every session lives in the Jupyter server `base` names."""

    def target(cwd: Path, session_id: str | None) -> ServerTarget:
        return base._replace(cwd=cwd, session=session_id or base.session)

    return target
