"""From connection events to what the conversation and the queue show.

Until the Python view fold (design.md D12) lands, this is the app's only fold of the session's events,
and a thin one: an assistant message is redrawn from the message each event carries, a tool card from
the arguments and output each tool event carries, so nothing here accumulates text of its own. The
snapshot of an attach (or of a replaced session) draws the newest messages the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from prime_jupyter.ai.types import AssistantMessage, ImageContent, Message, ToolResultMessage, UserMessage
from prime_jupyter.protocol.events import (
    AgentEnd,
    AgentStart,
    AutoRetryEnd,
    AutoRetryStart,
    CompactionEnd,
    CompactionStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    QueueUpdate,
    SessionEvent,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
)
from prime_jupyter.protocol.snapshot import AttachSnapshot

from .widgets.conversation import Conversation
from .widgets.message import AssistantMessageView, Notice, UserMessageView
from .widgets.queue_view import QueueView

__all__ = ["MOUNTED_MESSAGES", "Feed", "coalesce"]

MOUNTED_MESSAGES = 200
"""How many of a session's newest messages a snapshot draws (a long session opens quickly)."""


def coalesce(batch: Sequence[SessionEvent]) -> list[SessionEvent]:
    """Drop each `message_update` followed by another: the later one carries the whole message so far."""
    kept: list[SessionEvent] = []
    for index, event in enumerate(batch):
        following = batch[index + 1] if index + 1 < len(batch) else None
        if isinstance(event, MessageUpdate) and isinstance(following, MessageUpdate):
            continue
        kept.append(event)
    return kept


class Feed:
    """Applies session events to the conversation and the queue; knows whether a run goes."""

    def __init__(self, conversation: Conversation, queue: QueueView) -> None:
        self.conversation = conversation
        self.queue = queue
        self.running = False
        self._current: AssistantMessageView | None = None

    async def load(self, snapshot: AttachSnapshot) -> None:
        """Draw a session from scratch: its newest messages, the answer streaming now, its queue."""
        await self.conversation.clear()
        self._current = None
        messages = snapshot.messages
        if len(messages) > MOUNTED_MESSAGES:
            hidden = len(messages) - MOUNTED_MESSAGES
            await self.conversation.add(Notice(f"{hidden} earlier messages are in the transcript, not shown here."))
            messages = messages[-MOUNTED_MESSAGES:]
        for message in messages:
            await self._draw(message)
        if snapshot.streaming_message is not None:
            self._current = AssistantMessageView(self.conversation.cards)
            await self.conversation.add(self._current)
            await self._current.show(snapshot.streaming_message, streaming=True)
        self.running = snapshot.state.is_streaming
        self.queue.show(snapshot.state.steering, snapshot.state.follow_up)

    async def apply(self, event: SessionEvent) -> None:
        if isinstance(event, MessageStart | MessageUpdate | MessageEnd):
            await self._message(event)
        elif isinstance(event, ToolExecutionStart):
            (await self.conversation.card(event.tool_call_id, event.tool_name)).set_running(event.args)
        elif isinstance(event, ToolExecutionUpdate):
            card = await self.conversation.card(event.tool_call_id, event.tool_name)
            card.set_output(event.partial_result.content, event.partial_result.details)
        elif isinstance(event, ToolExecutionEnd):
            card = await self.conversation.card(event.tool_call_id, event.tool_name)
            card.set_output(event.result.content, event.result.details, "error" if event.is_error else "done")
        elif isinstance(event, QueueUpdate):
            self.queue.show(event.steering, event.follow_up)
        elif isinstance(event, AgentStart):
            self.running = True
        elif isinstance(event, AgentEnd):
            self.running = False
            if self._current is not None:
                await self._current.close(None)
                self._current = None
        else:
            await self._notice(event)

    async def _message(self, event: MessageStart | MessageUpdate | MessageEnd) -> None:
        message = event.message
        if isinstance(message, UserMessage):
            if isinstance(event, MessageStart):
                await self.conversation.add(UserMessageView(_user_text(message)))
            return
        if not isinstance(message, AssistantMessage):
            return  # tool results: their tool events drew them already
        if self._current is None or isinstance(event, MessageStart):
            self._current = AssistantMessageView(self.conversation.cards)
            await self.conversation.add(self._current)
        await self._current.show(message, streaming=not isinstance(event, MessageEnd))
        if isinstance(event, MessageEnd):
            self._current = None

    async def _notice(self, event: SessionEvent) -> None:
        text, level = _notice_of(event)
        if text:
            await self.conversation.add(Notice(text, level))

    async def _draw(self, message: Message) -> None:
        if isinstance(message, UserMessage):
            await self.conversation.add(UserMessageView(_user_text(message)))
        elif isinstance(message, AssistantMessage):
            view = AssistantMessageView(self.conversation.cards)
            await self.conversation.add(view)
            await view.show(message, streaming=False)
        elif isinstance(message, ToolResultMessage):
            card = await self.conversation.card(message.tool_call_id, message.tool_name)
            card.set_output(message.content, message.details, "error" if message.is_error else "done")


def _user_text(message: UserMessage) -> str:
    images = sum(1 for b in message.content if isinstance(b, ImageContent)) if isinstance(message.content, list) else 0
    return message.text() + (f"\n[{images} image(s)]" if images else "")


def _notice_of(event: SessionEvent) -> tuple[str | None, str]:
    if isinstance(event, AutoRetryStart):
        seconds = event.delay_ms / 1000
        return f"Retrying ({event.attempt}/{event.max_attempts}) in {seconds:.1f} s: {event.error_message}", "warning"
    if isinstance(event, AutoRetryEnd) and not event.success:
        return f"Gave up after {event.attempt} attempts: {event.final_error or 'the model call failed'}", "error"
    if isinstance(event, CompactionStart):
        return "Compacting the conversation…", "info"
    if isinstance(event, CompactionEnd):
        if event.aborted:
            return "Compaction aborted.", "warning"
        if event.error_message:
            return f"Compaction failed: {event.error_message}", "error"
        before = f" ({event.tokens_before:,} tokens before)" if event.tokens_before else ""
        return f"Compacted the conversation{before}.", "info"
    return None, "info"
