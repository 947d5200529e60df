"""`POST chat/command`: the slash commands the panel can run, one typed request and result each.

Requests are discriminated by `command`; each result names its `command` too, so a client can parse
any result with one union. Commands that move the session's leaf (`tree` with an `entryId`) make the
server send `resync-required{reason: "history-changed"}` to every client of the session; `fork` and
`clone` leave the source untouched and return the new session's id.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field

from prime_jupyter.protocol.common import (
    CompactResult,
    ExportFormat,
    ExportResult,
    RewindResult,
    SessionName,
    TreeNode,
)
from prime_jupyter.protocol.wire import WireModel

__all__ = [
    "ChatCloneCommand",
    "ChatCommandRequest",
    "ChatCommandResponse",
    "ChatCompactCommand",
    "ChatContextCommand",
    "ChatExportCommand",
    "ChatForkCommand",
    "ChatNameCommand",
    "ChatRewindCommand",
    "ChatTreeCommand",
    "CompactResult",
    "ContextResult",
    "ExportResult",
    "ForkResult",
    "NameResult",
    "TreeNode",
    "TreeResult",
]


class ChatNameCommand(WireModel):
    session_id: str
    command: Literal["name"] = "name"
    name: SessionName


class ChatCompactCommand(WireModel):
    session_id: str
    command: Literal["compact"] = "compact"
    instructions: str | None = None


class ChatForkCommand(WireModel):
    """A new session from this one: `before` a user message (its text comes back to edit), or `at` an entry."""

    session_id: str
    command: Literal["fork"] = "fork"
    entry_id: str
    position: Literal["before", "at"] = "before"


class ChatCloneCommand(WireModel):
    """A new session with this one's whole current branch."""

    session_id: str
    command: Literal["clone"] = "clone"


class ChatTreeCommand(WireModel):
    """The session tree; with `entryId`, first move the leaf there."""

    session_id: str
    command: Literal["tree"] = "tree"
    entry_id: str | None = None
    summarize: bool = False


class ChatRewindCommand(WireModel):
    """Put back what the agent's file and notebook tools changed since the user message `entryId`, and go on
    from before it (capability `rewind`)."""

    session_id: str
    command: Literal["rewind"] = "rewind"
    entry_id: str


class ChatExportCommand(WireModel):
    session_id: str
    command: Literal["export"] = "export"
    path: str | None = None
    format: ExportFormat | None = None
    """Default: from the path's suffix (`.jsonl`, `.ipynb`), else `html`."""


class ChatContextCommand(WireModel):
    session_id: str
    command: Literal["context"] = "context"


ChatCommandRequest: TypeAlias = Annotated[
    ChatNameCommand
    | ChatCompactCommand
    | ChatForkCommand
    | ChatCloneCommand
    | ChatTreeCommand
    | ChatExportCommand
    | ChatContextCommand
    | ChatRewindCommand,
    Field(discriminator="command"),
]


class NameResult(WireModel):
    command: Literal["name"] = "name"
    name: str


class ForkResult(WireModel):
    """For `fork` and `clone`: the new session (none when cancelled) and the text to edit, if any."""

    command: Literal["fork"] = "fork"
    cancelled: bool = False
    session_id: str | None = None
    selected_text: str | None = None


class TreeResult(WireModel):
    command: Literal["tree"] = "tree"
    nodes: list[TreeNode]
    leaf_id: str | None = None
    editor_text: str | None = None
    """After moving to a user message: its text, to edit and resend."""


class ContextResult(WireModel):
    """How full the context is: `tokens` of `contextWindow`."""

    command: Literal["context"] = "context"
    tokens: int
    context_window: int | None = None
    percent: float | None = None
    messages: int = 0


ChatCommandResponse: TypeAlias = Annotated[
    NameResult | CompactResult | ForkResult | TreeResult | ExportResult | ContextResult | RewindResult,
    Field(discriminator="command"),
]
