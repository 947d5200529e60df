"""Text for the summariser: the conversation flattened into labelled lines, and the prompts.

The conversation is serialised to plain text (not sent as chat turns) so the summarising model reads
it as a document instead of continuing it. The LLM call itself belongs to the runtime.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from prime_jupyter.ai.types import AssistantMessage, Message, TextContent, ThinkingContent, ToolCall, UserMessage

__all__ = [
    "SUMMARIZATION_SYSTEM_PROMPT",
    "SUMMARY_PROMPT",
    "TOOL_RESULT_MAX_CHARS",
    "TURN_PREFIX_PROMPT",
    "UPDATE_SUMMARY_PROMPT",
    "format_file_lists",
    "serialize_for_summary",
    "summary_request",
]

TOOL_RESULT_MAX_CHARS = 2000

SUMMARIZATION_SYSTEM_PROMPT = (
    "You summarise a conversation between a user and an AI assistant that works in a Python kernel "
    "and on files. Another model will continue the work from your summary alone. Output only the summary "
    "in the requested format; do not answer or continue the conversation."
)

_SECTIONS = """## Goal
[What the user wants to achieve; several goals if the session moved between tasks.]

## Constraints & Preferences
- [Requirements, conventions and preferences the user stated, or "(none)"]

## Progress
### Done
- [x] [Finished work]

### In Progress
- [ ] [Work under way]

### Blocked
- [What stops progress, if anything]

## Key Decisions
- **[Decision]**: [Why]

## Next Steps
1. [What to do next, in order]

## Critical Context
- [Data, names, values and references needed to continue, or "(none)"]

Be brief. Keep exact file paths, variable and function names, and error messages."""

SUMMARY_PROMPT = (
    "The text in <conversation> above is a conversation to summarise as a checkpoint for another model "
    "that will continue the work. Use exactly this format:\n\n" + _SECTIONS
)

UPDATE_SUMMARY_PROMPT = (
    "The text in <conversation> above continues the conversation summarised in <previous-summary>. "
    "Update that summary: keep what still holds, add new progress, decisions and context, move finished "
    "items from In Progress to Done, and refresh Next Steps. Use exactly this format:\n\n" + _SECTIONS
)

TURN_PREFIX_PROMPT = """The text in <conversation> above is the beginning of a turn too long to keep; its end is kept.
Summarise the beginning so the kept end makes sense:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions made and work done so far]

## Context for Suffix
- [What is needed to understand the kept part]

Be brief."""


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[... {len(text) - limit} more characters truncated]"


def _text(blocks: Sequence[object]) -> str:
    return "".join(b.text for b in blocks if isinstance(b, TextContent))


def _call(call: ToolCall) -> str:
    args = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in call.arguments.items())
    return f"{call.name}({args})"


def _assistant_lines(message: AssistantMessage) -> list[str]:
    thinking = [b.thinking for b in message.content if isinstance(b, ThinkingContent) and not b.redacted]
    text = [b.text for b in message.content if isinstance(b, TextContent)]
    calls = [_call(b) for b in message.content if isinstance(b, ToolCall)]
    lines = []
    if thinking:
        lines.append("[Assistant thinking]: " + "\n".join(thinking))
    if text:
        lines.append("[Assistant]: " + "\n".join(text))
    if calls:
        lines.append("[Assistant tool calls]: " + "; ".join(calls))
    return lines


def serialize_for_summary(messages: Sequence[Message]) -> str:
    """The messages as `[User]:` / `[Assistant thinking]:` / `[Assistant]:` / `[Assistant tool calls]:` /
    `[Tool result]:` paragraphs; each tool result is cut at 2,000 characters."""
    parts: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            text = message.content if isinstance(message.content, str) else _text(message.content)
            if text:
                parts.append(f"[User]: {text}")
        elif isinstance(message, AssistantMessage):
            parts.extend(_assistant_lines(message))
        else:
            text = _text(message.content)
            if text:
                parts.append(f"[Tool result]: {_truncate(text, TOOL_RESULT_MAX_CHARS)}")
    return "\n\n".join(parts)


def summary_request(
    messages: Sequence[Message],
    previous_summary: str | None = None,
    custom_instructions: str | None = None,
    *,
    turn_prefix: bool = False,
) -> str:
    """The user message to send with `SUMMARIZATION_SYSTEM_PROMPT` to get a (turn-prefix) summary."""
    prompt = TURN_PREFIX_PROMPT if turn_prefix else UPDATE_SUMMARY_PROMPT if previous_summary else SUMMARY_PROMPT
    if custom_instructions:
        prompt += f"\n\nAlso focus on: {custom_instructions}"
    text = f"<conversation>\n{serialize_for_summary(messages)}\n</conversation>\n\n"
    if previous_summary and not turn_prefix:
        text += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    return text + prompt


def format_file_lists(read_files: Sequence[str], modified_files: Sequence[str]) -> str:
    """`<read-files>` / `<modified-files>` blocks to append to a summary ("" when both are empty)."""
    blocks = []
    if read_files:
        blocks.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        blocks.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(blocks) if blocks else ""
