"""`Answer`: what a prompt's run ended with, as the Python API returns it."""

from __future__ import annotations

from dataclasses import dataclass, field

from prime_jupyter.ai.types import AssistantMessage, Message

__all__ = ["Answer", "answer_of"]


@dataclass(frozen=True)
class Answer:
    """What a prompt's run ended with: the final answer text and every message the run added."""

    text: str
    messages: list[Message] = field(default_factory=list)
    stop_reason: str = "stop"
    error: str | None = None
    session_id: str | None = None
    entry_id: str | None = None
    """The transcript entry of the final assistant message (provenance of what the answer produced)."""
    model: str | None = None
    """`provider/id` of the model that gave the final answer."""


def answer_of(messages: list[Message]) -> Answer:
    """The answer of a run from the messages it added (the last assistant message gives the text)."""
    last = next((m for m in reversed(messages) if isinstance(m, AssistantMessage)), None)
    if last is None:
        return Answer("", messages)
    text = "".join(part.text for part in last.content if part.type == "text")
    error = last.error_message if last.stop_reason in ("error", "aborted") else None
    return Answer(text, messages, last.stop_reason, error, model=f"{last.provider}/{last.model}")
