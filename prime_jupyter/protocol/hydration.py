"""Transcript messages → chat messages, losslessly: the `chat/session` view and the event mapper's output.

`hydrate` turns the messages of a transcript branch (with their entry ids) into `ChatMessage`s:
user messages keep text and images; assistant messages keep text, thinking (as `reasoning`) and tool
calls in block order; each tool call is joined with its tool result message (content *and* `details`,
the rich outputs), so nothing the live stream showed is lost on reload. Ids are entry ids.

The event mapper builds its `message-end` frames with the same functions, so a live client and a
reloading client end up with equal messages. `apply_live` lays the in-flight state of a run (the
message still streaming, tools still running) over a hydration taken mid-run.

Pure functions over plain lists: this module knows nothing of the sessions package.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from pydantic import Field, JsonValue

from prime_jupyter.ai.types import (
    AssistantMessage,
    Cost,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultContent,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from prime_jupyter.protocol.parts import (
    ChatMessage,
    ChatPart,
    ErrorPart,
    ImagePart,
    ReasoningPart,
    TextPart,
    ToolOutputData,
    ToolPart,
    tool_part_type,
)
from prime_jupyter.protocol.wire import WireModel

__all__ = [
    "NO_RESULT",
    "LiveRun",
    "LiveTool",
    "add_usage",
    "apply_live",
    "assistant_to_chat",
    "context_tokens",
    "finish_tool",
    "hydrate",
    "total_usage",
    "user_to_chat",
]

NO_RESULT = "No result was recorded for this call (the run was interrupted)."


class LiveTool(WireModel):
    """A tool part of the current run that has not finished, with where it sits."""

    message_id: str
    index: int | None = None
    part: ToolPart


class LiveRun(WireModel):
    """The in-flight state of a run that the transcript does not hold yet."""

    run_id: str
    message: ChatMessage | None = None
    """The assistant message still streaming, under its live id."""
    tools: list[LiveTool] = Field(default_factory=list)


def user_to_chat(message: UserMessage, message_id: str) -> ChatMessage:
    parts: list[ChatPart]
    if isinstance(message.content, str):
        parts = [TextPart(text=message.content)]
    else:
        parts = [_user_part(block) for block in message.content]
    return ChatMessage(id=message_id, role="user", parts=parts, created_at=message.timestamp)


def _user_part(block: TextContent | ImageContent) -> ChatPart:
    if isinstance(block, TextContent):
        return TextPart(text=block.text)
    return ImagePart(mime_type=block.mime_type, data=block.data)


def assistant_to_chat(message: AssistantMessage, message_id: str, *, streaming: Container[int] = ()) -> ChatMessage:
    """An assistant message with one part per content block; tool calls whose index is in `streaming`
    are still being written. Calls of a failed or aborted message never ran and say so."""
    failed = message.stop_reason in ("error", "aborted")
    parts = [_assistant_part(block, i in streaming, failed) for i, block in enumerate(message.content)]
    if message.stop_reason == "error":
        parts.append(ErrorPart(message=message.error_message or "The model call failed."))
    return ChatMessage(
        id=message_id,
        role="assistant",
        parts=parts,
        created_at=message.timestamp,
        stop_reason=message.stop_reason,
        provider=message.provider,
        model=message.model,
    )


def _assistant_part(block: TextContent | ThinkingContent | ToolCall, streaming: bool, failed: bool) -> ChatPart:
    if isinstance(block, TextContent):
        return TextPart(text=block.text)
    if isinstance(block, ThinkingContent):
        return ReasoningPart(text="" if block.redacted else block.thinking, redacted=block.redacted)
    part = ToolPart(
        type=tool_part_type(block.name),
        tool_call_id=block.id,
        tool_name=block.name,
        state="input-streaming" if streaming else "input-available",
        input=block.arguments,
    )
    if failed and not streaming:
        part.state, part.error_text = "output-error", "Not run: the response did not complete."
    return part


def finish_tool(part: ToolPart, content: Sequence[ToolResultContent], details: JsonValue, is_error: bool) -> ToolPart:
    """The part once its tool finished (`output-error` carries the error text the model saw)."""
    output = ToolOutputData(content=list(content), details=details)
    text = "\n".join(b.text for b in content if isinstance(b, TextContent))
    return part.model_copy(
        update={
            "state": "output-error" if is_error else "output-available",
            "output": output,
            "error_text": (text or "The tool failed.") if is_error else None,
        }
    )


def hydrate(messages: Sequence[Message], entry_ids: Sequence[str]) -> list[ChatMessage]:
    """Chat messages of a transcript branch; `entry_ids[i]` is the entry id of `messages[i]`."""
    chat: list[ChatMessage] = []
    calls: dict[str, tuple[ChatMessage, int]] = {}
    for message, entry_id in zip(messages, entry_ids, strict=True):
        if isinstance(message, UserMessage):
            chat.append(user_to_chat(message, entry_id))
        elif isinstance(message, AssistantMessage):
            chat.append(assistant_to_chat(message, entry_id))
            calls.update(_tool_slots(chat[-1]))
        else:
            _join_result(chat, calls, message, entry_id)
    for owner, index in calls.values():
        part = owner.parts[index]
        if isinstance(part, ToolPart) and part.state == "input-available":
            owner.parts[index] = part.model_copy(update={"state": "output-error", "error_text": NO_RESULT})
    return chat


def _tool_slots(message: ChatMessage) -> dict[str, tuple[ChatMessage, int]]:
    return {p.tool_call_id: (message, i) for i, p in enumerate(message.parts) if isinstance(p, ToolPart)}


def _join_result(
    chat: list[ChatMessage], calls: dict[str, tuple[ChatMessage, int]], result: ToolResultMessage, entry_id: str
) -> None:
    found = calls.pop(result.tool_call_id, None)
    if found is None:  # a result without its call: keep it, as a message of its own
        part = ToolPart(
            type=tool_part_type(result.tool_name),
            tool_call_id=result.tool_call_id,
            tool_name=result.tool_name,
            state="input-available",
        )
        orphan = finish_tool(part, result.content, result.details, result.is_error)
        chat.append(ChatMessage(id=entry_id, role="assistant", parts=[orphan], created_at=result.timestamp))
        return
    owner, index = found
    called = owner.parts[index]
    if isinstance(called, ToolPart):
        owner.parts[index] = finish_tool(called, result.content, result.details, result.is_error)


def apply_live(messages: list[ChatMessage], live: LiveRun | None) -> list[ChatMessage]:
    """`messages` with the running tools' current parts swapped in and the streaming message appended."""
    if live is None:
        return messages
    by_call = {tool.part.tool_call_id: tool.part for tool in live.tools}
    merged = [_with_live_parts(message, by_call) for message in messages]
    if live.message is not None and all(m.id != live.message.id for m in merged):
        merged.append(live.message)
    return merged


def _with_live_parts(message: ChatMessage, by_call: dict[str, ToolPart]) -> ChatMessage:
    if not any(isinstance(p, ToolPart) and p.tool_call_id in by_call for p in message.parts):
        return message
    parts = [by_call.get(p.tool_call_id, p) if isinstance(p, ToolPart) else p for p in message.parts]
    return message.model_copy(update={"parts": parts})


def add_usage(a: Usage, b: Usage) -> Usage:
    cost = Cost(
        input=a.cost.input + b.cost.input,
        output=a.cost.output + b.cost.output,
        cache_read=a.cost.cache_read + b.cost.cache_read,
        cache_write=a.cost.cache_write + b.cost.cache_write,
        total=a.cost.total + b.cost.total,
    )
    return Usage(
        input=a.input + b.input,
        output=a.output + b.output,
        cache_read=a.cache_read + b.cache_read,
        cache_write=a.cache_write + b.cache_write,
        total_tokens=a.total_tokens + b.total_tokens,
        cost=cost,
    )


def total_usage(messages: Sequence[Message]) -> Usage:
    """Everything the assistant messages of a transcript cost."""
    total = Usage()
    for message in messages:
        if isinstance(message, AssistantMessage):
            total = add_usage(total, message.usage)
    return total


def context_tokens(usage: Usage) -> int:
    """How much of the context window a response's prompt plus output took."""
    return usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write
