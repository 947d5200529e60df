"""Building what the model sees from the path root → leaf.

Walks the path once: the latest `model_change` (or assistant message) sets the model, the latest
`thinking_level_change` the thinking level, the latest `permission_mode_change` the permission mode.
If a compaction is on the path, its summary comes first, then the kept messages from `firstKeptEntryId`
up to the compaction, then everything after it.
Transcript-only messages (branch and compaction summaries, custom messages, the user's shell commands)
become user messages; a shell command run with `!!` (excluded from the context) is skipped;
bookkeeping entries (labels, names, custom state, unknown entries) are skipped.

`ContextFold` does that walk and keeps its result, so that entries appended under its leaf extend it
instead of starting over (start-up asks for the context twice, and every prompt again).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeAlias

from prime_jupyter.ai.data import AssistantMessageData
from prime_jupyter.ai.history import History
from prime_jupyter.ai.types import AssistantMessage, Message, TextContent, ToolResultMessage, UserMessage
from prime_jupyter.sessions.entries import (
    AgentMessage,
    AnyEntry,
    BashExecutionMessage,
    BranchSummaryEntry,
    BranchSummaryMessage,
    CompactionEntry,
    CompactionSummaryMessage,
    CustomMessage,
    MessageEntry,
    ModelChangeEntry,
    PermissionModeChangeEntry,
    RawEntry,
    ThinkingLevelChangeEntry,
)
from prime_jupyter.sessions.tree import id_of, is_raw, parent_id_of

__all__ = [
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX",
    "ContextFold",
    "SessionContext",
    "bash_execution_text",
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


_ModelSource: TypeAlias = AssistantMessage | AssistantMessageData | ModelChangeEntry | None
"""What names the model of a context: an assistant message (a model, or its data) or a model change."""


@dataclass(frozen=True)
class SessionContext:
    """The model context at the leaf; `entry_ids[i]` is the transcript entry of `messages[i]`."""

    messages: History = field(default_factory=History)
    entry_ids: list[str] = field(default_factory=list)
    provider: str | None = None
    model_id: str | None = None
    thinking_level: str | None = None
    permission_mode: str | None = None


def iso_to_ms(timestamp: str) -> int:
    """Milliseconds since the epoch of an entry timestamp (0 if it cannot be parsed)."""
    try:
        return int(datetime.fromisoformat(timestamp).timestamp() * 1000)
    except ValueError:
        return 0


def bash_execution_text(message: BashExecutionMessage) -> str:
    """What the model reads of a shell command the user ran (pi's `bashExecutionToText`)."""
    text = f"Ran `{message.command}`\n"
    text += f"```\n{message.output}\n```" if message.output else "(no output)"
    if message.cancelled:
        text += "\n\n(command cancelled)"
    elif message.exit_code is not None and message.exit_code != 0:
        text += f"\n\nCommand exited with code {message.exit_code}"
    if message.truncated and message.full_output_path:
        text += f"\n\n[Output truncated. Full output: {message.full_output_path}]"
    return text


def _in_context(message: AgentMessage) -> bool:
    return not (isinstance(message, BashExecutionMessage) and message.exclude_from_context)


def entry_message(entry: AnyEntry) -> AgentMessage | None:
    """The message an entry contributes to the context, if any."""
    if isinstance(entry, MessageEntry):
        return entry.message if _in_context(entry.message) else None
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
    if isinstance(message, BashExecutionMessage):
        return UserMessage(content=[TextContent(text=bash_execution_text(message))], timestamp=message.timestamp)
    if isinstance(message, CompactionSummaryMessage):
        text = COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX
        return UserMessage(content=[TextContent(text=text)], timestamp=message.timestamp)
    return message


def build_context(path: Sequence[AnyEntry | RawEntry]) -> SessionContext:
    """The context for a root → leaf path (see the module docstring)."""
    return ContextFold(path).context(copy=False)


class ContextFold:
    """The context of one root → leaf path, folded in one pass and extended as the leaf grows.

    `SessionManager` keeps one to answer `build_context()` without walking 22,000 entries again, and
    extends it with each entry appended under its leaf. A message entry still held as data
    (`RawEntry`, told apart by the tree's `is_raw`) adds its message to the `History` as data, never
    validated here. The lists it holds are its own:
    `context()` hands out copies.
    """

    def __init__(self, path: Sequence[AnyEntry | RawEntry] = ()) -> None:
        self.leaf_id: str | None = None
        self._messages = History()
        self._entry_ids: list[str] = []
        self._model_from: _ModelSource = None  # the latest entry to name the model
        self._thinking_level: str | None = None
        self._permission_mode: str | None = None
        self.straight = True
        """Whether every entry given to `follow` was the child of the one before."""
        for index, entry in enumerate(path):
            if isinstance(entry, CompactionEntry):
                self._restart_at(path, index, entry)
            else:
                self.extend(entry)

    def extend(self, entry: AnyEntry | RawEntry, path: Sequence[AnyEntry | RawEntry] = ()) -> bool:
        """Fold in a child of the leaf. A compaction needs `path`, root → the compaction: without it, False."""
        if is_raw(entry):  # a message entry loaded as data: a user, assistant or tool result message
            data = entry["message"]
            if data["role"] == "assistant":
                self._model_from = data
            self._messages.append_data(data)
            self._entry_ids.append(entry["id"])
            self.leaf_id = entry["id"]
            return True
        if isinstance(entry, MessageEntry):
            # Exact type tests for the common kinds: a failed isinstance() on a pydantic model class goes
            # through ABCMeta.__instancecheck__, several times the cost of a hit.
            message = entry.message
            if type(message) is AssistantMessage:
                self._model_from = message
                self._messages.append(message)
            elif type(message) is ToolResultMessage or type(message) is UserMessage:
                self._messages.append(message)
            elif not _in_context(message):
                self.leaf_id = entry.id
                return True
            else:
                converted = to_llm_message(message)
                if isinstance(converted, AssistantMessage):
                    self._model_from = converted
                self._messages.append(converted)
            self._entry_ids.append(entry.id)
        elif isinstance(entry, ModelChangeEntry):
            self._model_from = entry
        elif isinstance(entry, ThinkingLevelChangeEntry):
            self._thinking_level = entry.thinking_level
        elif isinstance(entry, PermissionModeChangeEntry):
            self._permission_mode = entry.permission_mode
        elif isinstance(entry, CompactionEntry):
            if not path or path[-1] is not entry:
                return False
            self._restart_at(path, len(path) - 1, entry)
        elif isinstance(entry, BranchSummaryEntry):
            self._add(entry)
        self.leaf_id = entry.id
        return True

    def follow(self, entry: AnyEntry | RawEntry, so_far: Sequence[AnyEntry | RawEntry]) -> None:
        """Fold entries in file order while each is the child of the one before (`so_far` is then the path).

        Meant for the loader's `on_entry`: a transcript that is one straight branch gets its context in
        the same pass. At the first entry that is not, `straight` turns False and folding stops.
        """
        if self.straight and (self.leaf_id != parent_id_of(entry) or not self.extend(entry, so_far)):
            self.straight = False

    def context(self, *, copy: bool = True) -> SessionContext:
        """The context at `leaf_id` (with lists of its own unless `copy=False`)."""
        messages, ids = (self._messages.copy(), list(self._entry_ids)) if copy else (self._messages, self._entry_ids)
        provider, model_id = _model_of(self._model_from)
        return SessionContext(messages, ids, provider, model_id, self._thinking_level, self._permission_mode)

    def _restart_at(self, path: Sequence[AnyEntry | RawEntry], at: int, entry: CompactionEntry) -> None:
        """The latest compaction wins: its summary, the kept entries before it, then what follows."""
        summary = CompactionSummaryMessage(
            summary=entry.summary, tokens_before=entry.tokens_before, timestamp=iso_to_ms(entry.timestamp)
        )
        self._messages, self._entry_ids = History([to_llm_message(summary)]), [entry.id]
        for kept in path[_index_of(path, entry.first_kept_entry_id, stop=at) : at]:
            if is_raw(kept):
                self._messages.append_data(kept["message"])
                self._entry_ids.append(kept["id"])
            else:
                self._add(kept)
        self.leaf_id = entry.id

    def _add(self, entry: AnyEntry) -> None:
        message = entry_message(entry)
        if message is not None:
            self._messages.append(to_llm_message(message))
            self._entry_ids.append(entry.id)


def _model_of(source: _ModelSource) -> tuple[str | None, str | None]:
    if source is None:
        return None, None
    if isinstance(source, AssistantMessage):
        return source.provider, source.model
    if isinstance(source, ModelChangeEntry):
        return source.provider, source.model_id
    provider: str | None = source.get("provider")  # data, not validated: maybe not a string after all
    model: str | None = source.get("model")
    return (provider, model) if isinstance(provider, str) and isinstance(model, str) else (None, None)


def _index_of(path: Sequence[AnyEntry | RawEntry], entry_id: str, stop: int) -> int:
    """Index of `entry_id` in `path[:stop]`, or `stop` when it is not there (nothing kept)."""
    for index in range(stop):
        if id_of(path[index]) == entry_id:
            return index
    return stop
