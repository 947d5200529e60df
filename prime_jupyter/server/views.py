"""What the chat routes show of a session: its summary, and its messages (cold and live hydration).

The chat view is built from every message on the branch root → leaf (`runtime.views.branch_messages`),
not from the model's context: after a compaction the model sees a summary in place of old messages,
but the person reading the chat still sees all of them, under the same ids as before.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from prime_jupyter.ai.types import AssistantMessage, UserMessage
from prime_jupyter.protocol.hydration import apply_live, context_tokens, hydrate
from prime_jupyter.protocol.parts import ChatMessage
from prime_jupyter.protocol.requests import ChatSessionResponse, ModelRef, SessionSummary
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.views import branch_messages, session_summary
from prime_jupyter.server.live import LiveSession
from prime_jupyter.sessions.entries import MessageEntry
from prime_jupyter.sessions.listing import SessionInfo
from prime_jupyter.sessions.manager import SessionManager

__all__ = ["chat_messages", "live_summary", "saved_summary", "snapshot"]


def chat_messages(manager: SessionManager) -> list[ChatMessage]:
    return hydrate(*branch_messages(manager))


def _when(timestamp: str) -> datetime:
    try:
        return datetime.fromisoformat(timestamp)
    except ValueError:
        return datetime.now(UTC)


def _info(manager: SessionManager) -> SessionInfo:
    """What a listing would read from the file, taken from the open transcript instead."""
    entries = manager.entries
    messages = [e.message for e in entries if isinstance(e, MessageEntry)]
    created = _when(manager.header.timestamp)
    return SessionInfo(
        path=manager.path or Path(manager.cwd),
        id=manager.session_id,
        cwd=manager.cwd,
        name=manager.name,
        parent_session=manager.header.parent_session,
        created=created,
        modified=_when(entries[-1].timestamp) if entries else created,
        message_count=len(messages),
        first_message=next((t for m in messages if isinstance(m, UserMessage) and (t := m.text())), ""),
        all_messages_text="",
    )


def saved_summary(info: SessionInfo, session: AgentSession | None = None) -> SessionSummary:
    summary = session_summary(info, session)
    return summary.model_copy(update={"parent_session": info.parent_session})


def live_summary(live: LiveSession) -> SessionSummary:
    return saved_summary(_info(live.session.manager), live.session)


def snapshot(live: LiveSession) -> ChatSessionResponse:
    """The session as of the ring's newest frame: follow SSE from `cursor` and nothing is missed."""
    session = live.session
    messages, ids = branch_messages(session.manager)
    in_flight = live.mapper.live()
    last = next((m for m in reversed(messages) if isinstance(m, AssistantMessage)), None)
    used = context_tokens(last.usage) if last is not None else 0
    return ChatSessionResponse(
        session=live_summary(live),
        messages=apply_live(hydrate(messages, ids), in_flight),
        cursor=live.ring.last_seq,
        live=in_flight,
        steering=session.steering.texts(),
        follow_up=session.follow_ups.texts(),
        pending_questions=session.ui.pending(),
        model=ModelRef(provider=session.model.provider, id=session.model.id),
        thinking_level=session.thinking_level,
        usage=live.mapper.usage_total,
        context_tokens=used or None,
        context_window=session.model.context_window,
    )
