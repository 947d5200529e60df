"""Provider-neutral clean-up of a conversation before it is converted to any wire format.

- assistant messages that failed (`stop_reason == "error"`) are left out: they were retried or reported;
- an aborted assistant message keeps its text but loses unfinished tool calls;
- every remaining tool call gets a result (a synthetic error result when the run was interrupted), and
  results without a call are dropped, because every provider rejects either mismatch.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from prime_jupyter.ai.types import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
)

__all__ = ["INTERRUPTED_RESULT", "normalize_messages", "safe_tool_id"]

INTERRUPTED_RESULT = "No result: the tool call was interrupted before it finished."
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def safe_tool_id(call_id: str, limit: int = 64) -> str:
    """A tool-call id every provider accepts (letters, digits, '_' and '-', bounded length)."""
    cleaned = _UNSAFE.sub("_", call_id)
    return cleaned[:limit] or "call"


def normalize_messages(messages: list[Message]) -> Iterator[Message]:
    """The cleaned conversation (see the module docstring), one message at a time.

    A generator, so that a provider converts each message while it is still in the CPU's caches: on a
    long history that is a fifth of the conversion time.
    """
    pending: dict[str, ToolCall] = {}  # the calls of the latest assistant message still waiting for a result
    for message in messages:
        if isinstance(message, ToolResultMessage):
            if pending.pop(message.tool_call_id, None) is not None:
                yield message
            continue
        if pending:
            yield from _interrupted(pending)
        if isinstance(message, AssistantMessage):
            cleaned = _clean_assistant(message)
            if cleaned is not None:
                yield cleaned
                pending = {block.id: block for block in cleaned.content if isinstance(block, ToolCall)}
        else:
            yield message
    yield from _interrupted(pending)


def _clean_assistant(message: AssistantMessage) -> AssistantMessage | None:
    if message.stop_reason == "error":
        return None
    if message.stop_reason != "aborted":
        return message
    kept = [b for b in message.content if not isinstance(b, ToolCall)]
    if not any(isinstance(b, TextContent) and b.text for b in kept):
        return None
    return message.model_copy(update={"content": kept})


def _interrupted(pending: dict[str, ToolCall]) -> list[ToolResultMessage]:
    """Error results for the calls still pending, which are then no longer pending."""
    results = [
        ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=[TextContent(text=INTERRUPTED_RESULT)],
            is_error=True,
        )
        for call in pending.values()
    ]
    pending.clear()
    return results
