"""Connection commands: what an `AgentConnection` asks of a session (design.md D9, upstream.md §3, §4.4).

The in-process connection calls the runtime directly; the HTTP connection posts these to the
server's connection routes, which run them against the same runtime. Each command may carry an `id`
that the server echoes in errors, for correlation. `COMMAND_RESULTS` names the result model of each
command type (`snapshot.py`). Commands that replace the session (`new_session`, `switch_session`,
`fork`, `clone_session`) answer with a `ReplacedResult` carrying the new session's snapshot.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field

from prime_jupyter.ai.types import ImageContent
from prime_jupyter.protocol.common import EntryLabel, ExportFormat, SessionName
from prime_jupyter.protocol.questions import QuestionAnswer
from prime_jupyter.protocol.requests import SeedMessage
from prime_jupyter.protocol.wire import WireModel

__all__ = [
    "AbortCommand",
    "AnswerQuestionCommand",
    "ClearQueueCommand",
    "CloneSessionCommand",
    "Command",
    "CompactCommand",
    "DeleteSessionCommand",
    "ExportCommand",
    "FollowUpCommand",
    "ForkCommand",
    "GetMessagesCommand",
    "GetSessionViewCommand",
    "GetStateCommand",
    "InterruptKernelCommand",
    "ListSessionsCommand",
    "NavigateTreeCommand",
    "NewSessionCommand",
    "PromptCommand",
    "RenameSessionCommand",
    "RestartKernelCommand",
    "RewindCommand",
    "SetLabelCommand",
    "SetModelCommand",
    "SetPermissionModeCommand",
    "SetThinkingLevelCommand",
    "SteerCommand",
    "SwitchSessionCommand",
]


class _Command(WireModel):
    id: str | None = None


class PromptCommand(_Command):
    """Start a run; while one is going, `streamingBehavior` queues the message (without it: busy)."""

    type: Literal["prompt"] = "prompt"
    message: str
    images: list[ImageContent] = Field(default_factory=list)
    streaming_behavior: Literal["steer", "follow_up"] | None = None


class SteerCommand(_Command):
    """Queue a message for the running turn (delivered after its current tool calls)."""

    type: Literal["steer"] = "steer"
    message: str
    images: list[ImageContent] = Field(default_factory=list)


class FollowUpCommand(_Command):
    """Queue a message for when the run would otherwise stop."""

    type: Literal["follow_up"] = "follow_up"
    message: str
    images: list[ImageContent] = Field(default_factory=list)


class AbortCommand(_Command):
    type: Literal["abort"] = "abort"


class ClearQueueCommand(_Command):
    type: Literal["clear_queue"] = "clear_queue"


class SetModelCommand(_Command):
    type: Literal["set_model"] = "set_model"
    provider: str
    model_id: str


class SetThinkingLevelCommand(_Command):
    type: Literal["set_thinking_level"] = "set_thinking_level"
    level: str


class SetPermissionModeCommand(_Command):
    """Switch the session's permission mode (`ask`, `accept-edits`, `plan`, `auto`; capability
    `permissions`); a mode the server forbids is refused, naming the allowed ones."""

    type: Literal["set_permission_mode"] = "set_permission_mode"
    mode: str


class CompactCommand(_Command):
    type: Literal["compact"] = "compact"
    custom_instructions: str | None = None


class NewSessionCommand(_Command):
    """Replace the session with a fresh one; `seedMessages` needs capability `seed-messages`."""

    type: Literal["new_session"] = "new_session"
    cwd: str | None = None
    parent_session: str | None = None
    seed_messages: list[SeedMessage] = Field(default_factory=list)


class SwitchSessionCommand(_Command):
    """Replace the session with a saved one, by id (a unique prefix will do) or path."""

    type: Literal["switch_session"] = "switch_session"
    session: str


class ForkCommand(_Command):
    """Replace the session with a fork: `before` a user message (its text is returned) or `at` an entry."""

    type: Literal["fork"] = "fork"
    entry_id: str
    position: Literal["before", "at"] = "before"


class NavigateTreeCommand(_Command):
    """Move the leaf to `targetId` in the same file, optionally summarising the branch left behind."""

    type: Literal["navigate_tree"] = "navigate_tree"
    target_id: str
    summarize: bool = False
    custom_instructions: str | None = None
    label: str | None = None


class RewindCommand(_Command):
    """Put back what the file and notebook tools changed since the user message `entryId`, and continue from
    before it as a new branch (capability `rewind`)."""

    type: Literal["rewind"] = "rewind"
    entry_id: str


class ListSessionsCommand(_Command):
    type: Literal["list_sessions"] = "list_sessions"
    scope: Literal["current", "all"] = "current"
    """`current`: sessions of this session's cwd; `all`: every saved session."""


class RenameSessionCommand(_Command):
    """Name a session; without `sessionId`, the connected one."""

    type: Literal["rename_session"] = "rename_session"
    name: SessionName
    session_id: str | None = None


class DeleteSessionCommand(_Command):
    type: Literal["delete_session"] = "delete_session"
    session_id: str


class ExportCommand(_Command):
    type: Literal["export"] = "export"
    format: ExportFormat = "html"
    path: str | None = None


class AnswerQuestionCommand(_Command):
    """Answer a pending question; no `answer` dismisses it."""

    type: Literal["answer_question"] = "answer_question"
    question_id: str
    answer: QuestionAnswer | None = None


# --- the session tree and the kernel (the terminal app's /tree, /clone, /kernel; capability-gated:
# `version.CAP_TREE_EDITS`, `version.CAP_KERNEL_CONTROL`) ------------------------------------------


class SetLabelCommand(_Command):
    """Label an entry of the transcript (a bookmark the tree shows and filters on); no `label` clears it."""

    type: Literal["set_label"] = "set_label"
    entry_id: str
    label: EntryLabel | None = None


class CloneSessionCommand(_Command):
    """Replace the session with a copy of its active branch (root → leaf), as a new transcript."""

    type: Literal["clone_session"] = "clone_session"


class InterruptKernelCommand(_Command):
    """Interrupt the code running in the session's kernel (a KeyboardInterrupt; its state is kept)."""

    type: Literal["interrupt_kernel"] = "interrupt_kernel"


class RestartKernelCommand(_Command):
    """Restart the session's kernel (its variables are gone; the model is told on its next call)."""

    type: Literal["restart_kernel"] = "restart_kernel"


class GetStateCommand(_Command):
    type: Literal["get_state"] = "get_state"


class GetMessagesCommand(_Command):
    type: Literal["get_messages"] = "get_messages"


class GetSessionViewCommand(_Command):
    type: Literal["get_session_view"] = "get_session_view"


Command: TypeAlias = Annotated[
    PromptCommand
    | SteerCommand
    | FollowUpCommand
    | AbortCommand
    | ClearQueueCommand
    | SetModelCommand
    | SetThinkingLevelCommand
    | SetPermissionModeCommand
    | CompactCommand
    | NewSessionCommand
    | SwitchSessionCommand
    | ForkCommand
    | NavigateTreeCommand
    | ListSessionsCommand
    | RenameSessionCommand
    | DeleteSessionCommand
    | ExportCommand
    | AnswerQuestionCommand
    | GetStateCommand
    | GetMessagesCommand
    | GetSessionViewCommand
    | SetLabelCommand
    | CloneSessionCommand
    | InterruptKernelCommand
    | RestartKernelCommand
    | RewindCommand,
    Field(discriminator="type"),
]
