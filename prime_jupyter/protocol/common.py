"""Models both vocabularies use: which model, a session as lists show it, a transcript entry as trees
show it, and the results of compacting and exporting.

They live apart from `requests.py` and `chat_commands.py` (which re-export them) so that the connection
vocabulary (`snapshot.py`) does not import the chat routes' models, frames and hydration: a headless run
imports this much and no more.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Annotated, Literal, TypeAlias

from pydantic import AfterValidator, Field, TypeAdapter

from prime_jupyter.protocol.wire import WireModel

__all__ = [
    "CompactResult",
    "EntryLabel",
    "ExportFormat",
    "ExportResult",
    "ModelRef",
    "RewindResult",
    "SessionName",
    "SessionSummary",
    "TreeNode",
    "entry_label",
    "session_name",
]


def _one_line(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned:
        raise ValueError("a name needs a visible character")
    if any(unicodedata.category(char) == "Cc" for char in cleaned):  # whitespace is folded above
        raise ValueError("a name cannot hold a control character (such as NUL); use printable characters")
    return cleaned


SessionName = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_one_line)]
"""A session name as every list and title bar shows it: one line, runs of whitespace made one space; no
other control character (a NUL in a name cuts it short in C strings and terminals)."""


@functools.cache
def _session_name_adapter() -> TypeAdapter[str]:
    return TypeAdapter(SessionName)


def session_name(name: str) -> str:
    """`name` as `SessionName` keeps it; raises `ValidationError` (a `ValueError`) as a request would."""
    return _session_name_adapter().validate_python(name)


EntryLabel = Annotated[str, Field(max_length=200), AfterValidator(lambda text: " ".join(text.split()))]
"""A label of a transcript entry, as the tree shows it: one line (an empty one clears the label)."""


@functools.cache
def _entry_label_adapter() -> TypeAdapter[str]:
    return TypeAdapter(EntryLabel)


def entry_label(label: str | None) -> str | None:
    """`label` as `EntryLabel` keeps it, None for no label; raises `ValidationError` (a `ValueError`)."""
    return _entry_label_adapter().validate_python(label) or None if label else None


class ModelRef(WireModel):
    provider: str
    id: str


class SessionSummary(WireModel):
    """One session as lists show it. Times are milliseconds since the epoch."""

    session_id: str
    title: str
    """The name, else the first user message, else the first 8 characters of the id."""
    name: str | None = None
    cwd: str
    path: str | None = None
    created_at: int
    updated_at: int
    status: Literal["running", "idle", "saved"]
    """`running`: live and in a run; `idle`: live in this server; `saved`: only on disk."""
    message_count: int = 0
    first_message: str = ""
    parent_session: str | None = None


class TreeNode(WireModel):
    """One transcript entry; `preview` is a short text for messages, `label` the user's bookmark."""

    id: str
    parent_id: str | None = None
    type: str
    timestamp: str
    role: str | None = None
    preview: str | None = None
    label: str | None = None


class CompactResult(WireModel):
    command: Literal["compact"] = "compact"
    compacted: bool
    summary: str | None = None
    tokens_before: int | None = None


class RewindResult(WireModel):
    """After a rewind (capability `rewind`): the files and notebooks put back, those kept because someone
    changed them since (`conflicts`), what could not be put back and why (`left`), the code that ran since
    (calls per tool; `!` for the user's commands) and what it did to the kernel, which are not undone; and
    the user message's text, to edit and send again. `summary` says all of it in a few lines."""

    command: Literal["rewind"] = "rewind"
    editor_text: str | None = None
    restored: list[str] = Field(default_factory=list)
    conflicts: list[str] = Field(default_factory=list)
    left: list[str] = Field(default_factory=list)
    code_runs: dict[str, int] = Field(default_factory=dict)
    kernel: list[str] = Field(default_factory=list)
    summary: str = ""


ExportFormat: TypeAlias = Literal["html", "jsonl", "ipynb"]
"""What a session exports to: a self-contained HTML page, a copy of its JSONL transcript, or a notebook.
`ipynb` is capability-gated (`version.CAP_EXPORT_IPYNB`): an older server refuses it."""


class ExportResult(WireModel):
    command: Literal["export"] = "export"
    path: str
    format: ExportFormat
