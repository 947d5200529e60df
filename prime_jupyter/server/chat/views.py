"""What the chat routes show of a session: its messages, for cold and live hydration.

The chat view is built from every message on the branch root → leaf (`runtime.views.branch_messages`),
not from the model's context: after a compaction the model sees a summary in place of old messages,
but the person reading the chat still sees all of them, under the same ids as before.
"""

from __future__ import annotations

from prime_jupyter.ai.types import AssistantMessage
from prime_jupyter.protocol.hydration import apply_live, context_tokens, hydrate
from prime_jupyter.protocol.parts import ChatMessage
from prime_jupyter.protocol.requests import ChatSessionResponse, ModelRef
from prime_jupyter.runtime.views import branch_messages
from prime_jupyter.server.host.live import LiveSession
from prime_jupyter.server.host.summaries import live_summary

__all__ = ["chat_messages", "snapshot"]


async def chat_messages(live: LiveSession) -> list[ChatMessage]:
    """The session's messages as the chat shows them, read through its connection."""
    branch = await live.connection.get_messages()
    return hydrate(branch.messages, branch.entry_ids)


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
        running_shells=session.running_shells(),
    )
