"""Provider-neutral clean-up of a conversation before it is converted to any wire format.

- assistant messages that failed (`stop_reason == "error"`) are left out: they were retried or reported;
- an aborted assistant message keeps its text but loses unfinished tool calls;
- every remaining tool call gets a result (a synthetic error result when the run was interrupted), and
  results without a call are dropped, because every provider rejects either mismatch.
"""

from __future__ import annotations

import re

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


def normalize_messages(messages: list[Message]) -> list[Message]:
    out: list[Message] = []
    pending: dict[str, ToolCall] = {}
    for message in messages:
        if isinstance(message, AssistantMessage):
            _close_pending(out, pending)
            cleaned = _clean_assistant(message)
            if cleaned is not None:
                out.append(cleaned)
                pending = {call.id: call for call in cleaned.tool_calls()}
        elif isinstance(message, ToolResultMessage):
            if message.tool_call_id in pending:
                pending.pop(message.tool_call_id)
                out.append(message)
        else:
            _close_pending(out, pending)
            out.append(message)
    _close_pending(out, pending)
    return out


def _clean_assistant(message: AssistantMessage) -> AssistantMessage | None:
    if message.stop_reason == "error":
        return None
    if message.stop_reason != "aborted":
        return message
    kept = [b for b in message.content if not isinstance(b, ToolCall)]
    if not any(isinstance(b, TextContent) and b.text for b in kept):
        return None
    return message.model_copy(update={"content": kept})


def _close_pending(out: list[Message], pending: dict[str, ToolCall]) -> None:
    for call in pending.values():
        out.append(
            ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=[TextContent(text=INTERRUPTED_RESULT)],
                is_error=True,
            )
        )
    pending.clear()
