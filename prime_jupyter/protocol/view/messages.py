"""The message list of the view state and the pure operations frames perform on it (`messages.ts`).

Each function mirrors the panel's function of the same name, case for case; only the touched message
and the touched part are new objects. The list is a tuple: replacing one message copies the tuple's
references (one pointer per message: a few microseconds per delta in a session of a thousand messages),
never the messages, their parts or their text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from operator import attrgetter

from prime_jupyter.ai.types import Usage
from prime_jupyter.protocol.parts import (
    ChatMessage,
    ChatPart,
    ErrorPart,
    ImagePart,
    ReasoningPart,
    TextPart,
    ToolPart,
)
from prime_jupyter.protocol.view.state import (
    ErrorView,
    ImageView,
    MessageView,
    PartView,
    ReasoningView,
    Text,
    TextView,
    ToolView,
)

__all__ = [
    "append_delta",
    "append_tool_input",
    "end_message",
    "find_message",
    "first_text",
    "message_view",
    "part_view",
    "replace_at",
    "set_usage",
    "stop_streaming",
    "streaming_message",
    "tool_view",
    "upsert_tool",
    "with_parts",
]

Messages = tuple[MessageView, ...]


def tool_view(part: ToolPart) -> ToolView:
    return ToolView(
        type=part.type,
        tool_call_id=part.tool_call_id,
        tool_name=part.tool_name,
        state=part.state,
        input=part.input,
        output=part.output,
        error_text=part.error_text,
    )


def part_view(part: ChatPart) -> PartView:
    """The view of a wire part."""
    if isinstance(part, TextPart):
        return TextView(Text(part.text))
    if isinstance(part, ReasoningPart):
        return ReasoningView(Text(part.text), part.redacted)
    if isinstance(part, ImagePart):
        return ImageView(part.mime_type, part.data)
    if isinstance(part, ErrorPart):
        return ErrorView(part.message, part.title)
    return tool_view(part)


def message_view(message: ChatMessage, key: str | None = None) -> MessageView:
    """The view of a wire message; `key` defaults to its id."""
    return MessageView(
        key=message.id if key is None else key,
        id=message.id,
        role=message.role,
        parts=tuple(part_view(p) for p in message.parts),
        created_at=message.created_at,
        stop_reason=message.stop_reason,
        model=message.model,
    )


def first_text(parts: Sequence[ChatPart | PartView]) -> str | None:
    """The text of the first text part, or None."""
    for part in parts:
        if isinstance(part, TextPart | TextView):
            return part.text
    return None


def find_message(messages: Messages, message_id: str) -> int:
    """Index of the message with `message_id`, searching from the end (where frames almost always land)."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].id == message_id:
            return i
    return -1


def replace_at(messages: Messages, index: int, message: MessageView) -> Messages:
    """`messages` with the message at `index` replaced."""
    # Concatenation, not unpacking (RUF005): it copies the references in one go, a third faster per delta.
    if index == len(messages) - 1:
        return messages[:index] + (message,)  # noqa: RUF005
    return messages[:index] + (message,) + messages[index + 1 :]  # noqa: RUF005


_MESSAGE_FIELDS = attrgetter(*MessageView.__slots__)
_PARTS = MessageView.__slots__.index("parts")


def with_parts(message: MessageView, parts: tuple[PartView, ...]) -> MessageView:
    """`message` with other parts: `dataclasses.replace`, at half its cost (it runs once per delta)."""
    fields = list(_MESSAGE_FIELDS(message))
    fields[_PARTS] = parts
    return MessageView(*fields)


def streaming_message(message_id: str, created_at: int | None) -> MessageView:
    """An empty streaming assistant message."""
    return MessageView(key=message_id, id=message_id, role="assistant", created_at=created_at, streaming=True)


def _part_at(parts: tuple[PartView, ...], index: int | None) -> PartView | None:
    return parts[index] if index is not None and 0 <= index < len(parts) else None


def _set_part(parts: tuple[PartView, ...], index: int | None, part: PartView) -> tuple[PartView, ...]:
    """`parts` with `part` at `index` (appended when `index` is past the end, negative or absent)."""
    if index is None or index < 0 or index >= len(parts):
        return (*parts, part)
    return parts[:index] + (part,) + parts[index + 1 :]  # noqa: RUF005 (as in replace_at)


def append_delta(messages: Messages, message_id: str, index: int, reasoning: bool, delta: str) -> Messages:
    """Append a text (or, with `reasoning`, a reasoning) delta to the part at `index` of the message,
    creating the message (streaming, at the end) when it is not there yet."""
    at = find_message(messages, message_id)
    if at < 0:
        messages, at = (*messages, streaming_message(message_id, None)), len(messages)
    message = messages[at]
    current = _part_at(message.parts, index)
    part: PartView
    if reasoning:
        part = (
            ReasoningView(current.body + delta, current.redacted)
            if isinstance(current, ReasoningView)
            else ReasoningView(Text(delta))
        )
    else:
        part = TextView(current.body + delta) if isinstance(current, TextView) else TextView(Text(delta))
    return replace_at(messages, at, with_parts(message, _set_part(message.parts, index, part)))


def append_tool_input(messages: Messages, message_id: str, index: int, tool_call_id: str, delta: str) -> Messages:
    """Append a chunk of argument JSON to the draft of tool part `tool_call_id` of the message."""
    at = find_message(messages, message_id)
    if at < 0:
        return messages
    message = messages[at]
    found = _tool_index(message.parts, tool_call_id)
    slot = found if found >= 0 else index
    current = _part_at(message.parts, slot)
    if not isinstance(current, ToolView):
        return messages
    draft = (current.draft_body or Text()) + delta
    tool = dataclasses.replace(current, draft_body=draft)
    return replace_at(messages, at, with_parts(message, _set_part(message.parts, slot, tool)))


def _tool_index(parts: tuple[PartView, ...], tool_call_id: str) -> int:
    for j, part in enumerate(parts):
        if isinstance(part, ToolView) and part.tool_call_id == tool_call_id:
            return j
    return -1


def _find_tool(messages: Messages, tool_call_id: str) -> tuple[int, int] | None:
    for i in range(len(messages) - 1, -1, -1):
        j = _tool_index(messages[i].parts, tool_call_id)
        if j >= 0:
            return i, j
    return None


def upsert_tool(messages: Messages, message_id: str, index: int | None, part: ToolPart) -> Messages:
    """Put the whole current state of a tool part in place: merged by `toolCallId` (anywhere), else at
    `index` of the message, else as a message of its own. The draft survives only while the arguments
    are still streaming."""
    found = _find_tool(messages, part.tool_call_id)
    at = found[0] if found is not None else find_message(messages, message_id)
    tool = tool_view(part)
    if at < 0:
        return (*messages, MessageView(key=message_id, id=message_id, role="assistant", parts=(tool,)))
    message = messages[at]
    previous = message.parts[found[1]] if found is not None else None
    if isinstance(previous, ToolView) and part.state == "input-streaming" and previous.draft_body is not None:
        tool = dataclasses.replace(tool, draft_body=previous.draft_body)
    slot = found[1] if found is not None else index
    return replace_at(messages, at, with_parts(message, _set_part(message.parts, slot, tool)))


def _has_text(message: MessageView, text: str) -> bool:
    return any(isinstance(p, TextView) and p.text == text for p in message.parts)


def _user_slot(messages: Messages, message: ChatMessage) -> int:
    """The index a persisted user message replaces: itself, else its optimistic copy, else -1 (append)."""
    same = find_message(messages, message.id)
    if same >= 0:
        return same
    text = first_text(message.parts)
    for i, m in enumerate(messages):
        if m.pending and (text is None or _has_text(m, text)):
            return i
    return next((i for i, m in enumerate(messages) if m.pending), -1)


def end_message(messages: Messages, live_id: str, message: ChatMessage) -> Messages:
    """A message is final: replace the message `live_id` (or the one already under the final id, or the
    optimistic copy of a user message) with it, keeping its render key; append it when it is new."""
    at = find_message(messages, live_id)
    if at < 0:
        at = _user_slot(messages, message) if message.role == "user" else find_message(messages, message.id)
    if at < 0:
        return (*messages, message_view(message))
    old = messages[at]
    return replace_at(messages, at, dataclasses.replace(message_view(message, old.key), usage=old.usage))


def set_usage(messages: Messages, message_id: str, usage: Usage) -> Messages:
    """Attach a message's usage (the `usage` frame follows its `message-end`)."""
    at = find_message(messages, message_id)
    return messages if at < 0 else replace_at(messages, at, dataclasses.replace(messages[at], usage=usage))


def stop_streaming(messages: Messages) -> Messages:
    """Every message marked as no longer streaming (a run ended)."""
    if not any(m.streaming for m in messages):
        return messages
    return tuple(dataclasses.replace(m, streaming=False) if m.streaming else m for m in messages)
