"""The records of a session transcript (JSONL format version 3).

Line 1 of a file is a `SessionHeader`; every later line is an entry `{type, id, parentId, timestamp, ...}`.
Entries form a tree through `parentId`. Keys are camelCase on the wire, like `prime_jupyter.ai.types`.

Message entries carry an `AgentMessage`: the provider messages of `ai.types` plus three kinds that only
transcripts know (`branchSummary`, `compactionSummary`, `custom`); `context.py` turns those into user
messages before a model sees them.

An entry whose `type` this version does not know (written by a newer version, or by the seed system)
loads as an `UnknownEntry`: it stays in the tree, so its children keep their parent, it is copied
verbatim by fork, and it never reaches the model.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, ClassVar, Literal, NotRequired, TypeAlias, TypedDict

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from pydantic.alias_generators import to_camel

from prime_jupyter.ai.data import MessageData
from prime_jupyter.ai.types import (
    AssistantMessage,
    TextContent,
    ToolResultMessage,
    UserContent,
    UserMessage,
    now_ms,
)

__all__ = [
    "CURRENT_VERSION",
    "KNOWN_ENTRY_TYPES",
    "AgentMessage",
    "AnyEntry",
    "BashExecutionMessage",
    "BranchSummaryEntry",
    "BranchSummaryMessage",
    "CompactionEntry",
    "CompactionSummaryMessage",
    "CustomEntry",
    "CustomMessage",
    "LabelEntry",
    "MessageEntry",
    "ModelChangeEntry",
    "PermissionModeChangeEntry",
    "RawEntry",
    "SessionEntry",
    "SessionHeader",
    "SessionInfoEntry",
    "ThinkingLevelChangeEntry",
    "UnknownEntry",
    "iso_now",
]

CURRENT_VERSION = 3


def iso_now() -> str:
    """The current UTC time as `2026-01-02T03:04:05.678Z`, the timestamp format of entries."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _WireModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", defer_build=True)


# --- messages only transcripts know -------------------------------------------------------------


class BranchSummaryMessage(_WireModel):
    """A summary of a branch the conversation came back from (`fromId` = the abandoned leaf)."""

    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    from_id: str
    timestamp: int = Field(default_factory=now_ms)


class CompactionSummaryMessage(_WireModel):
    """The summary that replaces compacted history."""

    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokens_before: int
    timestamp: int = Field(default_factory=now_ms)


class CustomMessage(_WireModel):
    """A message injected by an extension; the model sees it as a user message.

    `display` says whether front ends show it; `details` is extension data the model never sees.
    """

    role: Literal["custom"] = "custom"
    custom_type: str
    content: str | list[UserContent]
    display: bool = True
    details: JsonValue = None
    timestamp: int = Field(default_factory=now_ms)

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "\n".join(b.text for b in self.content if isinstance(b, TextContent))


class BashExecutionMessage(_WireModel):
    """A shell command the user ran (`!cmd` in the terminal app), with its output (pi's `bashExecution`).

    The model sees it as a user message (`context.py`), unless `excludeFromContext` (`!!cmd`): then it
    is only kept in the transcript. `output` is the tail the runner kept (`truncated`: the rest is in
    `fullOutputPath`); `exitCode` is None when the command did not exit by itself (`cancelled`)."""

    role: Literal["bashExecution"] = "bashExecution"
    command: str
    output: str
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool = False
    timestamp: int = Field(default_factory=now_ms)


AgentMessage: TypeAlias = Annotated[
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage
    | CustomMessage
    | BashExecutionMessage,
    Field(discriminator="role"),
]


# --- header and entries -------------------------------------------------------------------------


class SessionHeader(_WireModel):
    """Line 1 of a transcript; not part of the tree."""

    type: Literal["session"] = "session"
    version: int = CURRENT_VERSION
    id: str
    timestamp: str = Field(default_factory=iso_now)
    cwd: str
    parent_session: str | None = None


class _Entry(_WireModel):
    """Fields every entry has. `parentId` is written even when null (the root)."""

    _keep_null: ClassVar[tuple[str, ...]] = ("parent_id",)

    type: str
    id: str
    parent_id: str | None
    timestamp: str = Field(default_factory=iso_now)

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> object:
        data = handler(self)
        if not isinstance(data, dict):
            return data
        for name in self._keep_null:
            data.setdefault(to_camel(name) if info.by_alias else name, getattr(self, name))
        parent_key = "parentId" if info.by_alias else "parent_id"
        head = ("type", "id", parent_key, "timestamp")
        return {**{key: data[key] for key in head if key in data}, **data}  # the base fields lead each line


class MessageEntry(_Entry):
    type: Literal["message"] = "message"
    message: AgentMessage


class ModelChangeEntry(_Entry):
    type: Literal["model_change"] = "model_change"
    provider: str
    model_id: str


class ThinkingLevelChangeEntry(_Entry):
    type: Literal["thinking_level_change"] = "thinking_level_change"
    thinking_level: str


class PermissionModeChangeEntry(_Entry):
    """The session's permission mode (`ask`, `accept-edits`, `plan`, `auto`) from here on; the latest on
    the path is the mode a resumed session gets back."""

    type: Literal["permission_mode_change"] = "permission_mode_change"
    permission_mode: str


class CompactionEntry(_Entry):
    """History before `firstKeptEntryId` is replaced by `summary` in the model context.

    `details` holds `{readFiles, modifiedFiles}` for our own compactions (tracked across compactions).
    """

    type: Literal["compaction"] = "compaction"
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: JsonValue = None


class BranchSummaryEntry(_Entry):
    type: Literal["branch_summary"] = "branch_summary"
    from_id: str
    summary: str


class LabelEntry(_Entry):
    """Sets (or, with `label: null`, clears) a user bookmark on `targetId`."""

    _keep_null: ClassVar[tuple[str, ...]] = ("parent_id", "label")

    type: Literal["label"] = "label"
    target_id: str
    label: str | None = None


class SessionInfoEntry(_Entry):
    """Session metadata; the latest one names the session."""

    type: Literal["session_info"] = "session_info"
    name: str | None = None


class CustomEntry(_Entry):
    """Extension state; never part of the model context."""

    type: Literal["custom"] = "custom"
    custom_type: str
    data: JsonValue = None


class UnknownEntry(_Entry):
    """An entry this version cannot interpret; every field is kept so it round-trips."""

    model_config = ConfigDict(extra="allow")


SessionEntry: TypeAlias = Annotated[
    MessageEntry
    | ModelChangeEntry
    | ThinkingLevelChangeEntry
    | PermissionModeChangeEntry
    | CompactionEntry
    | BranchSummaryEntry
    | LabelEntry
    | SessionInfoEntry
    | CustomEntry,
    Field(discriminator="type"),
]

KNOWN_ENTRY_TYPES = frozenset(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "permission_mode_change",
        "compaction",
        "branch_summary",
        "label",
        "session_info",
        "custom",
    }
)
"""The `type` values of `SessionEntry`."""

AnyEntry: TypeAlias = SessionEntry | UnknownEntry
"""What a loaded transcript holds: a known entry, or an opaque one kept for the tree."""


class RawEntry(TypedDict):
    """A message entry as its line parsed, its message not validated yet (see `store.load_transcript`).

    Its envelope (`id`, `parentId`, `timestamp`) has been checked and its message has the role of a
    provider message. Only the tree and its accessors tell it from an entry (`tree.is_raw`): the tree
    turns it into a `MessageEntry` when someone asks for the entry, and the context reads its message
    as data (`ai.history`). Never changed in place.
    """

    type: Literal["message"]
    id: str
    parentId: str | None
    timestamp: NotRequired[str]
    message: MessageData
