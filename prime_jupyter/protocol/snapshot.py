"""Connection state, the snapshot on attach and command results.

These are the read side of vocabulary (a) (design.md D9): what `AgentConnection.get_state()` and an
attach return, and what each `Command` answers (`COMMAND_RESULTS`). The messages of the connection
routes' SSE stream (`ConnectionOutbound`) are in `connection_routes.py`, so a process that only runs a
session in-process (the headless CLI) does not import the chat frames. Messages here are the `ai`
messages themselves, not chat messages: connection clients (the terminal app) render transcripts their
own way.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from prime_jupyter.ai.types import AssistantMessage, Message, Usage
from prime_jupyter.protocol.common import CompactResult, ExportResult, ModelRef, RewindResult, SessionSummary, TreeNode
from prime_jupyter.protocol.questions import Question
from prime_jupyter.protocol.wire import WireModel

__all__ = [
    "COMMAND_RESULTS",
    "AttachSnapshot",
    "ConnectionState",
    "KernelState",
    "MessagesResult",
    "NavigateResult",
    "OkResult",
    "PromptResult",
    "QueueResult",
    "ReplacedResult",
    "RunningShell",
    "SessionView",
    "SessionsResult",
]


KernelState = Literal["stopped", "starting", "idle", "busy", "dead"]


class BudgetStatus(WireModel):
    """What was spent against the cost budgets (dollars); a limit None is no budget (`runtime.budget`)."""

    session_spent_usd: float = 0.0
    session_limit_usd: float | None = None
    day_spent_usd: float | None = None
    """Today's spend of every session of the agent dir (None without a daily budget: not read)."""
    day_limit_usd: float | None = None


class ConnectionState(WireModel):
    """Where a session stands. `messageCount` and `contextTokens` are of the model's context (after a
    compaction, the summary and what was kept); `header` is the transcript's header line
    (`{"type": "session", "version", "id", "timestamp", "cwd", ...}`); `kernelId`/`kernelState` are those
    of the `ipython` tool's kernel (None without one; the id is None until it started): in a server it
    is one of `/api/kernels`, so a console can be opened on it."""

    session_id: str
    cwd: str
    session_file: str | None = None
    session_name: str | None = None
    leaf_id: str | None = None
    model: ModelRef | None = None
    thinking_level: str = "off"
    available_thinking_levels: list[str] = Field(default_factory=list)
    is_streaming: bool = False
    is_compacting: bool = False
    steering: list[str] = Field(default_factory=list)
    follow_up: list[str] = Field(default_factory=list)
    message_count: int = 0
    usage: Usage | None = None
    context_tokens: int | None = None
    context_window: int | None = None
    header: dict[str, JsonValue] = Field(default_factory=dict)
    kernel_id: str | None = None
    kernel_state: KernelState | None = None
    permission_mode: str | None = None
    """`ask`, `accept-edits`, `plan` or `auto` (None: a server too old to have modes)."""
    allowed_permission_modes: list[str] = Field(default_factory=list)
    """The modes the session may switch to (the server's `allowed_permission_modes`)."""
    budget: BudgetStatus | None = None
    """The spend against the session's cost budgets; None when it has none."""


class RunningShell(WireModel):
    """A user's shell command (`!cmd`) running as of a snapshot: what its `shell_execution_start` told,
    and the end of its output so far, bounded as an output chunk is (16 KB), `skipped` counting the bytes
    left out before it. Its `shell_execution_output` and `_end` events follow the snapshot's cursor."""

    execution_id: str
    command: str
    include_in_context: bool = True
    output: str = ""
    skipped: int = 0


class AttachSnapshot(WireModel):
    """Everything a client needs to draw a session, as of `cursor`; events after it follow on the stream.

    `entryIds[i]` is the transcript entry of `messages[i]`; `streamingMessage` is the assistant message
    in flight (not in the transcript yet)."""

    state: ConnectionState
    messages: list[Message] = Field(default_factory=list)
    entry_ids: list[str] = Field(default_factory=list)
    streaming_message: AssistantMessage | None = None
    pending_questions: list[Question] = Field(default_factory=list)
    cursor: int = 0
    earlier_messages: int | None = None
    """How many messages of the branch before `messages` the snapshot leaves out (a snapshot of the newest
    turns, `get_snapshot(tail=...)`): `get_messages()` has them all, these first. 0: none, the snapshot
    holds the whole branch. None: the server does not say (one before schema revision 8), so a client that
    wants the whole branch reads it."""
    running_shells: list[RunningShell] = Field(default_factory=list)
    """The user's shell commands running as of `cursor` (absent from a server before schema revision 8: a
    client then sees a command from its next output chunk on)."""


class OkResult(WireModel):
    ok: Literal[True] = True


class PromptResult(WireModel):
    """The message was accepted: it started a run, or it was queued (`steer` / `follow_up`)."""

    queued: Literal["steer", "follow_up"] | None = None


class QueueResult(WireModel):
    steering: list[str] = Field(default_factory=list)
    follow_up: list[str] = Field(default_factory=list)


class ReplacedResult(WireModel):
    """The session was replaced (unless `cancelled`); `selectedText` is the text to edit after a fork."""

    cancelled: bool = False
    selected_text: str | None = None
    snapshot: AttachSnapshot | None = None


class NavigateResult(WireModel):
    cancelled: bool = False
    editor_text: str | None = None


class SessionsResult(WireModel):
    sessions: list[SessionSummary]


class MessagesResult(WireModel):
    messages: list[Message]
    entry_ids: list[str]


class SessionView(WireModel):
    """A read-only view of the transcript: every entry as a flat tree, and where the leaf is."""

    cwd: str
    session_dir: str | None = None
    session_name: str | None = None
    leaf_id: str | None = None
    nodes: list[TreeNode] = Field(default_factory=list)
    header: dict[str, JsonValue] = Field(default_factory=dict)
    """The transcript's header line (`{"type": "session", "version", "id", "timestamp", "cwd", ...}`)."""


COMMAND_RESULTS: dict[str, type[WireModel]] = {
    "prompt": PromptResult,
    "steer": PromptResult,
    "follow_up": PromptResult,
    "abort": OkResult,
    "clear_queue": QueueResult,
    "set_model": OkResult,
    "set_thinking_level": OkResult,
    "set_permission_mode": OkResult,
    "compact": CompactResult,
    "new_session": ReplacedResult,
    "switch_session": ReplacedResult,
    "fork": ReplacedResult,
    "navigate_tree": NavigateResult,
    "list_sessions": SessionsResult,
    "rename_session": OkResult,
    "delete_session": OkResult,
    "export": ExportResult,
    "answer_question": OkResult,
    "get_state": ConnectionState,
    "get_messages": MessagesResult,
    "get_session_view": SessionView,
    "set_label": OkResult,
    "clone_session": ReplacedResult,
    "interrupt_kernel": OkResult,
    "restart_kernel": OkResult,
    "rewind": RewindResult,
}
"""The result model of each command type; failures are an HTTP status with an `ErrorBody`."""
