"""The commands that mean the same on every host, carried out on an `AgentConnection`: a turn (prompt,
steer, follow-up, abort, queue), the session's settings (model, thinking, mode), compaction and the reads
(state, messages, view). A host that must do more for the others (the server: replaced sessions, its
root, its event log; the RPC mode: its own session switching) handles those first and hands the rest here.
"""

from __future__ import annotations

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.protocol.commands import (
    AbortCommand,
    ClearQueueCommand,
    Command,
    CompactCommand,
    FollowUpCommand,
    GetMessagesCommand,
    GetSessionViewCommand,
    GetStateCommand,
    PromptCommand,
    SetModelCommand,
    SetPermissionModeCommand,
    SetThinkingLevelCommand,
    SteerCommand,
)
from prime_jupyter.protocol.snapshot import OkResult
from prime_jupyter.protocol.wire import WireModel

__all__ = ["run_common_command"]


async def run_common_command(connection: AgentConnection, command: Command) -> WireModel | None:
    """The command's result (`COMMAND_RESULTS`); None for a command not among these (the host's to run)."""
    match command:
        case PromptCommand(message=message, images=images, streaming_behavior=behavior):
            return await connection.prompt(message, images or None, behavior)
        case SteerCommand(message=message, images=images):
            return await connection.steer(message, images or None)
        case FollowUpCommand(message=message, images=images):
            return await connection.follow_up(message, images or None)
        case AbortCommand():
            await connection.abort()
        case ClearQueueCommand():
            return await connection.clear_queue()
        case SetModelCommand(provider=provider, model_id=model_id):
            await connection.set_model(provider, model_id)
        case SetThinkingLevelCommand(level=level):
            await connection.set_thinking_level(level)
        case SetPermissionModeCommand(mode=mode):
            await connection.set_permission_mode(mode)
        case CompactCommand(custom_instructions=instructions):
            return await connection.compact(instructions)
        case GetStateCommand():
            return await connection.get_state()
        case GetMessagesCommand():
            return await connection.get_messages()
        case GetSessionViewCommand():
            return await connection.get_session_view()
        case _:
            return None
    return OkResult()
