"""Building what the model sees from the path root → leaf.

Walks the path once: the latest `model_change` (or assistant message) sets the model, the latest
`thinking_level_change` the thinking level. If a compaction is on the path, its summary comes first,
then the kept messages from `firstKeptEntryId` up to the compaction, then everything after it.
Transcript-only messages (branch and compaction summaries, custom messages) become user messages;
bookkeeping entries (labels, names, custom state, unknown entries) are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from prime_jupyter.ai.types import AssistantMessage, Message, TextContent, UserMessage
from prime_jupyter.sessions.entries import (
    AgentMessage,
    AnyEntry,
    BranchSummaryEntry,
    BranchSummaryMessage,
    CompactionEntry,
    CompactionSummaryMessage,
    CustomMessage,
    MessageEntry,
    ModelChangeEntry,
    ThinkingLevelChangeEntry,
)

__all__ = [
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX",
    "SessionContext",
    "build_context",
    "entry_message",
    "iso_to_ms",
    "to_llm_message",
]

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "\n</summary>"


@dataclass(frozen=True)
class SessionContext:
    """The model context at the leaf; `entry_ids[i]` is the transcript entry of `messages[i]`."""

    messages: list[Message] = field(default_factory=list)
    entry_ids: list[str] = field(default_factory=list)
    provider: str | None = None
    model_id: str | None = None
    thinking_level: str | None = None


def iso_to_ms(timestamp: str) -> int:
    """Milliseconds since the epoch of an entry timestamp (0 if it cannot be parsed)."""
    try:
        return int(datetime.fromisoformat(timestamp).timestamp() * 1000)
    except ValueError:
        return 0


def entry_message(entry: AnyEntry) -> AgentMessage | None:
    """The message an entry contributes to the context, if any."""
    if isinstance(entry, MessageEntry):
        return entry.message
    if isinstance(entry, BranchSummaryEntry) and entry.summary:
        return BranchSummaryMessage(summary=entry.summary, from_id=entry.from_id, timestamp=iso_to_ms(entry.timestamp))
    return None


def to_llm_message(message: AgentMessage) -> Message:
    """A provider message: transcript-only kinds become user messages."""
    if isinstance(message, CustomMessage):
        return UserMessage(content=message.content, timestamp=message.timestamp)
    if isinstance(message, BranchSummaryMessage):
        text = BRANCH_SUMMARY_PREFIX + message.summary + BRANCH_SUMMARY_SUFFIX
        return UserMessage(content=[TextContent(text=text)], timestamp=message.timestamp)
    if isinstance(message, CompactionSummaryMessage):
        text = COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX
        return UserMessage(content=[TextContent(text=text)], timestamp=message.timestamp)
    return message


def build_context(path: Sequence[AnyEntry]) -> SessionContext:
    """The context for a root → leaf path (see the module docstring)."""
    provider: str | None = None
    model_id: str | None = None
    thinking_level: str | None = None
    compaction: tuple[int, CompactionEntry] | None = None
    for index, entry in enumerate(path):
        if isinstance(entry, ModelChangeEntry):
            provider, model_id = entry.provider, entry.model_id
        elif isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            provider, model_id = entry.message.provider, entry.message.model
        elif isinstance(entry, ThinkingLevelChangeEntry):
            thinking_level = entry.thinking_level
        elif isinstance(entry, CompactionEntry):
            compaction = (index, entry)
    context = SessionContext(provider=provider, model_id=model_id, thinking_level=thinking_level)
    if compaction is None:
        _add_messages(context, path)
    else:
        _add_compacted(context, path, *compaction)
    return context


def _add_compacted(context: SessionContext, path: Sequence[AnyEntry], at: int, entry: CompactionEntry) -> None:
    summary = CompactionSummaryMessage(
        summary=entry.summary, tokens_before=entry.tokens_before, timestamp=iso_to_ms(entry.timestamp)
    )
    context.messages.append(to_llm_message(summary))
    context.entry_ids.append(entry.id)
    kept_from = _index_of(path, entry.first_kept_entry_id, stop=at)
    _add_messages(context, path[kept_from:at])
    _add_messages(context, path[at + 1 :])


def _index_of(path: Sequence[AnyEntry], entry_id: str, stop: int) -> int:
    """Index of `entry_id` in `path[:stop]`, or `stop` when it is not there (nothing kept)."""
    for index in range(stop):
        if path[index].id == entry_id:
            return index
    return stop


def _add_messages(context: SessionContext, entries: Sequence[AnyEntry]) -> None:
    for entry in entries:
        message = entry_message(entry)
        if message is not None:
            context.messages.append(to_llm_message(message))
            context.entry_ids.append(entry.id)
