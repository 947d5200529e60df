"""What a session list shows of a session: its summary, from a listing or from the open transcript.

Both route families list sessions through the bridge (`chat/sessions`, the connection's
`list_sessions`), so a live session reads the same in both: as it is now (running or idle), not as
its file last said.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from prime_jupyter.ai.types import UserMessage
from prime_jupyter.protocol.requests import SessionSummary
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.views import session_summary
from prime_jupyter.server.host.live import LiveSession
from prime_jupyter.sessions.entries import MessageEntry
from prime_jupyter.sessions.listing import SessionInfo
from prime_jupyter.sessions.manager import SessionManager

__all__ = ["live_summary", "saved_summary"]


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
