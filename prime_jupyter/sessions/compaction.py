"""Compaction: deciding when and where to cut, and what to hand to the summariser.

Pure functions over the path root → leaf. The runtime asks `prepare_compaction`, has a model
summarise (`summary_request`), then calls `SessionManager.append_compaction(summary + file lists,
first_kept_entry_id, tokens_before, details)`; the next `build_context` starts with the summary.

Token counts are estimates (characters / 4, an image ≈ 1,200 tokens), deliberately on the high side.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import JsonValue

from prime_jupyter.ai.types import AssistantMessage, ImageContent, Message, TextContent, ThinkingContent, ToolCall
from prime_jupyter.sessions.context import bash_execution_text, entry_message, to_llm_message
from prime_jupyter.sessions.entries import (
    AgentMessage,
    AnyEntry,
    BashExecutionMessage,
    BranchSummaryEntry,
    BranchSummaryMessage,
    CompactionEntry,
    CompactionSummaryMessage,
    MessageEntry,
)
from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.sessions.summary import (
    SUMMARIZATION_SYSTEM_PROMPT,
    SUMMARY_PROMPT,
    TURN_PREFIX_PROMPT,
    UPDATE_SUMMARY_PROMPT,
    format_file_lists,
    serialize_for_summary,
    summary_request,
)

__all__ = [
    "DEFAULT_KEEP_RECENT_TOKENS",
    "DEFAULT_RESERVE_TOKENS",
    "SUMMARIZATION_SYSTEM_PROMPT",
    "SUMMARY_PROMPT",
    "TURN_PREFIX_PROMPT",
    "UPDATE_SUMMARY_PROMPT",
    "CompactionPreparation",
    "estimate_context_tokens",
    "estimate_tokens",
    "find_cut_point",
    "format_file_lists",
    "prepare_compaction",
    "serialize_for_summary",
    "should_compact",
    "summary_request",
]

DEFAULT_RESERVE_TOKENS = 16384
DEFAULT_KEEP_RECENT_TOKENS = 20000
_IMAGE_CHARS = 4800  # about 1,200 tokens
_FILE_TOOLS = {"read": "read", "write": "modified", "edit": "modified"}


def _block_chars(block: object) -> int:
    if isinstance(block, TextContent):
        return len(block.text)
    if isinstance(block, ThinkingContent):
        return len(block.thinking)
    if isinstance(block, ToolCall):
        return len(block.name) + len(json.dumps(block.arguments))
    return _IMAGE_CHARS if isinstance(block, ImageContent) else 0


def estimate_tokens(message: AgentMessage) -> int:
    """Estimated tokens of one message: characters / 4, rounded up."""
    if isinstance(message, BranchSummaryMessage | CompactionSummaryMessage):
        chars = len(message.summary)
    elif isinstance(message, BashExecutionMessage):
        chars = len(bash_execution_text(message)) if not message.exclude_from_context else 0
    elif isinstance(message.content, str):
        chars = len(message.content)
    else:
        chars = sum(_block_chars(block) for block in message.content)
    return math.ceil(chars / 4)


def estimate_context_tokens(messages: Sequence[Message]) -> int:
    """Context size: the last successful assistant usage, plus estimates for what came after it."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, AssistantMessage) and message.stop_reason not in ("error", "aborted"):
            usage = message.usage
            used = usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write
            if used:
                return used + sum(estimate_tokens(m) for m in messages[index + 1 :])
    return sum(estimate_tokens(m) for m in messages)


def should_compact(context_tokens: int, context_window: int, reserve_tokens: int = DEFAULT_RESERVE_TOKENS) -> bool:
    """Whether the context leaves less than `reserve_tokens` of the window free."""
    return context_tokens > context_window - reserve_tokens


def _is_cut_point(entry: AnyEntry) -> bool:
    """A turn may be cut before user, assistant, custom and summary messages; never a tool result."""
    if isinstance(entry, BranchSummaryEntry):
        return True
    return isinstance(entry, MessageEntry) and entry.message.role != "toolResult"


def _starts_turn(entry: AnyEntry) -> bool:
    if isinstance(entry, BranchSummaryEntry):
        return True
    return isinstance(entry, MessageEntry) and entry.message.role in (
        "user",
        "custom",
        "branchSummary",
        "bashExecution",
    )


def find_cut_point(
    path_entries: Sequence[AnyEntry], keep_recent_tokens: int = DEFAULT_KEEP_RECENT_TOKENS, start: int = 0
) -> int:
    """Index of the first entry to keep so that about `keep_recent_tokens` of recent messages stay.

    Walks back from the newest message until the budget is reached, then cuts at the nearest valid cut
    point at or before that message (a tool result stays with the call that produced it). Settings
    entries just before the cut are kept too. Returns `start` or the first cut point when everything fits.
    """
    cut_points = [i for i in range(start, len(path_entries)) if _is_cut_point(path_entries[i])]
    if not cut_points:
        return start
    cut = cut_points[0]
    total = 0
    for index in range(len(path_entries) - 1, start - 1, -1):
        message = entry_message(path_entries[index])
        total += estimate_tokens(message) if message is not None else 0
        if total >= keep_recent_tokens:
            cut = max((c for c in cut_points if c <= index), default=cut)
            break
    while cut > start and _is_bookkeeping(path_entries[cut - 1]):
        cut -= 1
    return cut


def _is_bookkeeping(entry: AnyEntry) -> bool:
    return entry_message(entry) is None and not isinstance(entry, CompactionEntry)


@dataclass(frozen=True)
class CompactionPreparation:
    """What to summarise and what to record once the summary exists.

    If the cut falls inside a turn (`is_split_turn`), the turn's beginning is in `turn_prefix_messages`
    and should get its own summary (`summary_request(..., turn_prefix=True)`), merged after the main one.
    """

    first_kept_entry_id: str
    messages_to_summarize: list[Message]
    turn_prefix_messages: list[Message]
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)

    def details(self) -> dict[str, JsonValue]:
        """The `details` of the compaction entry, read back by the next compaction."""
        return {"readFiles": list(self.read_files), "modifiedFiles": list(self.modified_files)}


def prepare_compaction(
    manager: SessionManager, keep_recent_tokens: int = DEFAULT_KEEP_RECENT_TOKENS
) -> CompactionPreparation | None:
    """Plan a compaction of the active branch; None when there is nothing to summarise."""
    path = manager.path_to(manager.leaf_id)
    if not path or isinstance(path[-1], CompactionEntry):
        return None
    previous = _last_compaction(path)
    start = _kept_start(path, previous)
    cut = find_cut_point(path, keep_recent_tokens, start)
    turn_start = _turn_start(path, cut, start)
    history_end = cut if turn_start is None else turn_start
    to_summarize = _messages(path[start:history_end])
    prefix = _messages(path[turn_start:cut]) if turn_start is not None else []
    if cut >= len(path) or not (to_summarize or prefix):
        return None
    read, modified = _file_lists(previous[1] if previous else None, [*to_summarize, *prefix])
    return CompactionPreparation(
        first_kept_entry_id=path[cut].id,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=prefix,
        is_split_turn=turn_start is not None,
        tokens_before=estimate_context_tokens(manager.build_context().messages),
        previous_summary=previous[1].summary if previous else None,
        read_files=read,
        modified_files=modified,
    )


def _last_compaction(path: Sequence[AnyEntry]) -> tuple[int, CompactionEntry] | None:
    for index in range(len(path) - 1, -1, -1):
        entry = path[index]
        if isinstance(entry, CompactionEntry):
            return index, entry
    return None


def _kept_start(path: Sequence[AnyEntry], previous: tuple[int, CompactionEntry] | None) -> int:
    """Where the current context's history begins: the previous compaction's first kept entry."""
    if previous is None:
        return 0
    at, entry = previous
    return next((i for i in range(at) if path[i].id == entry.first_kept_entry_id), at + 1)


def _turn_start(path: Sequence[AnyEntry], cut: int, start: int) -> int | None:
    """The start of the turn the cut falls into, or None if the cut is at a turn boundary."""
    first_message = next((i for i in range(cut, len(path)) if entry_message(path[i]) is not None), cut)
    if first_message >= len(path) or _starts_turn(path[first_message]):
        return None
    return next((i for i in range(cut - 1, start - 1, -1) if _starts_turn(path[i])), None)


def _messages(entries: Sequence[AnyEntry]) -> list[Message]:
    found = (entry_message(entry) for entry in entries)
    return [to_llm_message(message) for message in found if message is not None]


def _file_lists(previous: CompactionEntry | None, messages: Sequence[Message]) -> tuple[list[str], list[str]]:
    """Files read and modified so far: the previous compaction's lists plus this span's tool calls."""
    seen: dict[str, set[str]] = {"read": set(), "modified": set()}
    if previous is not None and isinstance(previous.details, dict):
        for kind, key in (("read", "readFiles"), ("modified", "modifiedFiles")):
            listed = previous.details.get(key)
            if isinstance(listed, list):
                seen[kind].update(path for path in listed if isinstance(path, str))
    for message in messages:
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls():
                path = call.arguments.get("path")
                if call.name in _FILE_TOOLS and isinstance(path, str):
                    seen[_FILE_TOOLS[call.name]].add(path)
    return sorted(seen["read"] - seen["modified"]), sorted(seen["modified"])
