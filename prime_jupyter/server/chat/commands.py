"""`POST chat/command`: the slash commands the panel can run (`protocol.chat_commands`).

Most go through the session's connection. `tree` with an `entryId` moves the leaf, and `rewind` puts
back what the agent changed and moves it too, so every client gets `resync-required{history-changed}`.
`fork` and `clone` write a new transcript (model and thinking level copied) and leave the source session
as it is, live and streaming; the new session opens on first use. (The connection's own `fork` replaces
its session instead, which is what a terminal wants and not what a server holding many sessions wants.)
"""

from __future__ import annotations

from pathlib import Path

from prime_jupyter.protocol.chat_commands import (
    ChatCloneCommand,
    ChatCommandRequest,
    ChatCommandResponse,
    ChatCompactCommand,
    ChatContextCommand,
    ChatExportCommand,
    ChatForkCommand,
    ChatNameCommand,
    ChatRewindCommand,
    ChatTreeCommand,
    ContextResult,
    ForkResult,
    NameResult,
    TreeResult,
)
from prime_jupyter.runtime.session_ops import clone_transcript, export_format, export_target, fork_transcript
from prime_jupyter.server.host.live import LiveSession
from prime_jupyter.sessions.compaction import estimate_context_tokens

__all__ = ["run_command"]


async def run_command(
    live: LiveSession, command: ChatCommandRequest, sessions_dir: Path, confined_to: Path | None = None
) -> ChatCommandResponse:
    """Run `command` on `live`; new transcripts go to `sessions_dir`, exports stay inside `confined_to`."""
    connection = live.connection
    match command:
        case ChatNameCommand(name=name):
            await connection.rename_session(name)
            return NameResult(name=name)
        case ChatCompactCommand(instructions=instructions):
            return await connection.compact(instructions)
        case ChatForkCommand(entry_id=entry_id, position=position):
            fork = fork_transcript(live.session, entry_id, position, sessions_dir)
            return ForkResult(session_id=fork.session_id, selected_text=fork.selected_text)
        case ChatCloneCommand():
            return ForkResult(session_id=clone_transcript(live.session, sessions_dir).session_id)
        case ChatTreeCommand():
            return await _tree(live, command)
        case ChatExportCommand(path=path, format=fmt):
            return await connection.export(export_format(fmt, path), export_target(live.session.cwd, path, confined_to))
        case ChatContextCommand():
            return _context(live)
        case ChatRewindCommand(entry_id=entry_id):
            rewound = await connection.rewind(entry_id)
            live.history_changed()
            return rewound


async def _tree(live: LiveSession, command: ChatTreeCommand) -> TreeResult:
    editor_text = None
    if command.entry_id is not None:
        navigated = await live.connection.navigate_tree(command.entry_id, command.summarize)
        editor_text = navigated.editor_text
        live.history_changed()
    view = await live.connection.get_session_view()
    return TreeResult(nodes=view.nodes, leaf_id=view.leaf_id, editor_text=editor_text)


def _context(live: LiveSession) -> ContextResult:
    messages = live.session.messages()
    tokens = estimate_context_tokens(messages)
    window = live.session.model.context_window
    percent = round(100 * tokens / window, 1) if window else None
    return ContextResult(tokens=tokens, context_window=window, percent=percent, messages=len(messages))
