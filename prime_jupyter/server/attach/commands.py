"""Run a connection `Command` against a live session of this server (`POST connection/command`).

Most commands go straight to the session's `InProcessAgentConnection`. The ones that would replace
the session in place (`new_session`, `switch_session`, `fork`, `clone_session`) do not: a server holds many sessions
and each keeps running for its own clients, so the other session is created or opened through the
bridge beside it, and the answer carries that session's snapshot. The client then follows the other
session instead (`HttpAgentConnection` emits `SessionReplaced` itself). Listing, renaming and deleting
go through the bridge too, so they see every session this server holds.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from prime_jupyter.connection.commands import run_common_command
from prime_jupyter.errors import SessionError
from prime_jupyter.protocol.commands import (
    AnswerQuestionCommand,
    CloneSessionCommand,
    Command,
    DeleteSessionCommand,
    ExportCommand,
    ForkCommand,
    InterruptKernelCommand,
    ListSessionsCommand,
    NavigateTreeCommand,
    NewSessionCommand,
    RenameSessionCommand,
    RestartKernelCommand,
    RewindCommand,
    SetLabelCommand,
    SwitchSessionCommand,
)
from prime_jupyter.protocol.requests import ChatNewRequest, ModelRef
from prime_jupyter.protocol.snapshot import OkResult, ReplacedResult, SessionsResult
from prime_jupyter.protocol.wire import WireModel
from prime_jupyter.runtime.session_ops import clone_transcript, export_target, fork_transcript, resolve_cwd
from prime_jupyter.server.attach.event_log import ConnectionHub
from prime_jupyter.server.host.bridge import PrimeBridge
from prime_jupyter.server.host.live import LiveSession
from prime_jupyter.server.http.base import ApiError
from prime_jupyter.sessions.listing import find_listed_session

__all__ = ["CommandContext", "resolve_session", "run_connection_command"]


@dataclass(frozen=True, slots=True)
class CommandContext:
    bridge: PrimeBridge
    hub: ConnectionHub
    live: LiveSession


async def resolve_session(bridge: PrimeBridge, ref: str) -> LiveSession:
    """The session a full id, a unique part of one, a name, or a transcript of the sessions folder names,
    opened if needed; the same 404 for anything else (a path elsewhere tells nothing of what is there)."""
    live = bridge.live(ref)
    if live is not None:
        return live
    info = await asyncio.to_thread(find_listed_session, bridge.config.sessions_dir, ref)
    return await bridge.get(info.id)


async def run_connection_command(ctx: CommandContext, command: Command) -> WireModel:
    """The command's result (`COMMAND_RESULTS`); a value the session refuses is a 400."""
    try:
        return await _run(ctx, command)
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None


async def _run(ctx: CommandContext, command: Command) -> WireModel:
    connection = ctx.live.connection
    if isinstance(command, NavigateTreeCommand):
        navigated = await connection.navigate_tree(command.target_id, command.summarize, command.custom_instructions)
        ctx.live.history_changed()
        return navigated
    if isinstance(command, RewindCommand):
        rewound = await connection.rewind(command.entry_id)
        ctx.live.history_changed()
        return rewound
    common = await run_common_command(connection, command)
    return common if common is not None else await _run_session_command(ctx, command)


async def _run_session_command(ctx: CommandContext, command: Command) -> WireModel:
    connection = ctx.live.connection
    match command:
        case NewSessionCommand():
            return await _new_session(ctx, command)
        case SwitchSessionCommand(session=ref):
            return _replaced(ctx, await resolve_session(ctx.bridge, ref))
        case ForkCommand(entry_id=entry_id, position=position):
            return await _fork(ctx, entry_id, position)
        case CloneSessionCommand():
            cloned = clone_transcript(ctx.live.session, ctx.bridge.config.sessions_dir)
            return _replaced(ctx, await ctx.bridge.get(cloned.session_id))
        case SetLabelCommand(entry_id=entry_id, label=label):
            await connection.set_label(entry_id, label)
        case InterruptKernelCommand():
            await connection.interrupt_kernel()  # the kernel is the server's own: its kernel manager does it
        case RestartKernelCommand():
            await connection.restart_kernel()
        case ListSessionsCommand(scope=scope):
            cwd = ctx.live.session.cwd if scope == "current" else None
            return SessionsResult(sessions=await ctx.bridge.summaries(cwd))
        case RenameSessionCommand(name=name, session_id=session_id):
            await _rename(ctx, name, session_id)
        case DeleteSessionCommand(session_id=session_id):
            await _delete(ctx, session_id)
        case ExportCommand(format=fmt, path=path):
            return await connection.export(
                fmt, export_target(ctx.live.session.cwd, path, ctx.bridge.config.confined_to)
            )
        case AnswerQuestionCommand(question_id=question_id, answer=answer):
            if not await connection.answer_question(question_id, answer):
                raise ApiError(404, f"question {question_id} is no longer pending", "not-found")
    return OkResult()


def _replaced(ctx: CommandContext, live: LiveSession, selected_text: str | None = None) -> ReplacedResult:
    return ReplacedResult(selected_text=selected_text, snapshot=ctx.hub.log_for(live).snapshot())


async def _new_session(ctx: CommandContext, command: NewSessionCommand) -> ReplacedResult:
    """A fresh session beside this one, with this one's model and thinking level (and cwd by default)."""
    session = ctx.live.session
    config = ctx.bridge.config
    cwd = resolve_cwd(config.root_dir, command.cwd, default=Path(session.cwd), confined_to=config.confined_to)
    request = ChatNewRequest(
        model=ModelRef(provider=session.model.provider, id=session.model.id),
        thinking_level=session.thinking_level,
        permission_mode=session.permission_mode,
        seed_messages=command.seed_messages,
    )
    return _replaced(ctx, await ctx.bridge.create(request, cwd))


async def _fork(ctx: CommandContext, entry_id: str, position: Literal["before", "at"]) -> ReplacedResult:
    """Write the fork as a new transcript (this session stays as it is) and open it."""
    forked = fork_transcript(ctx.live.session, entry_id, position, ctx.bridge.config.sessions_dir)
    return _replaced(ctx, await ctx.bridge.get(forked.session_id), forked.selected_text)


async def _rename(ctx: CommandContext, name: str, session_id: str | None) -> None:
    if not name.strip():
        raise ApiError(400, "name: empty")
    if session_id is None or session_id == ctx.live.session_id:
        await ctx.live.connection.rename_session(name)
        return
    info = await asyncio.to_thread(find_listed_session, ctx.bridge.config.sessions_dir, session_id)
    await ctx.bridge.rename(info.id, name)


async def _delete(ctx: CommandContext, session_id: str) -> None:
    info = await asyncio.to_thread(find_listed_session, ctx.bridge.config.sessions_dir, session_id)
    if info.id == ctx.live.session_id:
        raise SessionError("this session is attached here: switch to another one before deleting it")
    await ctx.bridge.delete(info.id)
