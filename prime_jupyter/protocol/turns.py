"""Where a conversation's newest turns begin: the cut that both the view fold (`ViewFold.from_snapshot(tail=)`,
`unfold_earlier`) and a snapshot of the newest turns (`runtime.views`) make, so what one sends the other
folds alone as it folds with the rest."""

from __future__ import annotations

from prime_jupyter.ai.types import AssistantMessage, Message, ToolCall, ToolResultMessage

__all__ = ["TurnCut"]


class TurnCut:
    """Given a branch's messages newest first, says at which one the newest turns holding at least `tail`
    messages (tool results not counted) begin: a user message after which every tool result answers a
    call also after it."""

    def __init__(self, tail: int) -> None:
        self._tail = tail
        self._count = 0
        self._unanswered: set[str] = set()

    def starts_at(self, message: Message) -> bool:
        """Whether the turns begin at `message`, the one before the last given."""
        if isinstance(message, ToolResultMessage):
            self._unanswered.add(message.tool_call_id)
            return False
        self._count += 1
        if isinstance(message, AssistantMessage):
            self._unanswered.difference_update(b.id for b in message.content if isinstance(b, ToolCall))
            return False
        return self._count >= self._tail and not self._unanswered
