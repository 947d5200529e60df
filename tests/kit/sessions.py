"""Message factories shared by the session tests (imported as a plain module)."""

from __future__ import annotations

from prime_jupyter.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage


def make_user(text: str) -> UserMessage:
    return UserMessage(content=text)


def make_assistant(text: str = "ok", *, calls: tuple[ToolCall, ...] = (), model: str = "m1") -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text), *calls],
        api="anthropic-messages",
        provider="anthropic",
        model=model,
        usage=Usage(input=10, output=5, total_tokens=15),
        stop_reason="toolUse" if calls else "stop",
    )


def make_result(call_id: str, text: str, name: str = "ipython") -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)])
