"""Replacing the live session of an in-process connection: the session that takes over, and the hook after.

New, switch, fork and clone (`InProcessAgentConnection`) each find a transcript and hand over to a
session on it, built as the current one was (its options, model and thinking level) in a thread, since
building it reads files and may start a kernel. The connection disposes the old session, re-points its
subscription and says so (`SessionReplaced`); only then does the caller's `after_replace` hook run,
with what it may do (`ReplacedClientContext`).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Literal

from prime_jupyter.connection.types import (
    AfterReplace,
    ClientNotice,
    ClientSetEditorText,
    ConnectionEvent,
    ReplacedClientContext,
)
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.runtime.library import SessionManager

__all__ = ["build_replacement", "run_after_replace"]


async def build_replacement(current: AgentSession, options: SessionOptions, manager: SessionManager) -> AgentSession:
    """A session on `manager` with `options`, and the model, thinking level, extensions and MCP servers
    `current` has now (its extensions and servers are kept when the new session is in the same folder)."""
    replaced = dataclasses.replace(
        options,
        manager=manager,
        model=f"{current.model.provider}/{current.model.id}",
        thinking=current.thinking_level,
        extensions=current.extensions,
        mcp=current.mcp,
    )
    return await asyncio.to_thread(create_agent_session, replaced)


async def run_after_replace(
    after_replace: AfterReplace | None,
    send_user_message: Callable[[str], Awaitable[object]],
    emit: Callable[[ConnectionEvent], None],
) -> None:
    """Run the caller's hook, if any, once the replacement took effect; its notices and editor text
    are emitted to the connection's listeners."""
    if after_replace is None:
        return
    context = ReplacedClientContext(
        send_user_message=send_user_message,
        notify=lambda message, level: emit(ClientNotice(message, _level(level))),
        set_editor_text=lambda text: emit(ClientSetEditorText(text)),
    )
    outcome = after_replace(context)
    if asyncio.iscoroutine(outcome):
        await outcome


def _level(level: str) -> Literal["info", "warning", "error"]:
    return "warning" if level == "warning" else "error" if level == "error" else "info"
