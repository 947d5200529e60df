"""`AgentConnection`: the protocol every front end codes against (upstream.md §3, our runtime's subset).

Rule of thumb: anything that changes agent execution or the persisted session goes through here;
presentation stays in the front end. Members marked process-local exist only in the process that runs
the session; remote implementations raise `AgentConnectionUnsupportedError` carrying a `feature` name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, Protocol

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.types import ImageContent
from prime_jupyter.connection.types import AfterReplace, ConnectionListener
from prime_jupyter.protocol.common import CompactResult, ExportFormat, ExportResult
from prime_jupyter.protocol.questions import QuestionAnswer
from prime_jupyter.protocol.snapshot import (
    AttachSnapshot,
    ConnectionState,
    MessagesResult,
    NavigateResult,
    PromptResult,
    QueueResult,
    ReplacedResult,
    SessionsResult,
    SessionView,
)

if TYPE_CHECKING:  # what a headless run does not use: the chat routes' models, commands, `!cmd` results
    from prime_jupyter.connection.extensions import CommandInfo, Renderer
    from prime_jupyter.protocol.requests import ModelsResponse, SeedMessage
    from prime_jupyter.protocol.shell import ShellResult

__all__ = ["AgentConnection", "ConnectionExtensions"]

StreamingBehavior = Literal["steer", "follow_up"]


class ConnectionExtensions(Protocol):
    """Extension surfaces (commands and their completions, diagnostics, shortcuts, renderers).

    Permanently process-local (`extensions.LocalExtensions`); over HTTP every member raises
    `AgentConnectionUnsupportedError`."""

    def commands(self) -> list[CommandInfo]: ...
    def get_argument_completions(self, command: str, prefix: str) -> list[str]: ...
    def get_command_diagnostics(self) -> list[str]: ...
    def get_shortcuts(self) -> dict[str, str]: ...
    def get_message_renderer(self, custom_type: str) -> Renderer | None: ...
    def get_tool_renderer(self, tool_name: str) -> Renderer | None: ...
    def register_tool_renderer(self, tool_name: str, renderer: Renderer) -> None: ...
    def register_message_renderer(self, custom_type: str, renderer: Renderer) -> None: ...
    def bind_extensions(self, bindings: dict[str, Callable[..., object]]) -> None: ...


class AgentConnection(Protocol):
    # events and lifecycle
    def subscribe(self, listener: ConnectionListener) -> Callable[[], None]: ...
    async def dispose(self) -> None: ...

    # reads
    async def get_state(self) -> ConnectionState: ...
    async def get_snapshot(self, tail: int | None = None) -> AttachSnapshot:
        """The session as an attach sees it. `tail` is a hint: the snapshot may hold only the newest turns
        with at least `tail` messages (the earlier ones: `get_messages()`), or the whole branch."""
        ...

    async def get_messages(self) -> MessagesResult: ...
    async def get_session_view(self) -> SessionView: ...
    async def get_available_models(self) -> ModelsResponse: ...
    async def list_sessions(self, scope: Literal["current", "all"] = "current") -> SessionsResult: ...

    # prompting and the queue
    async def prompt(
        self,
        message: str,
        images: list[ImageContent] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
    ) -> PromptResult: ...
    async def steer(self, message: str, images: list[ImageContent] | None = None) -> PromptResult: ...
    async def follow_up(self, message: str, images: list[ImageContent] | None = None) -> PromptResult: ...
    async def abort(self) -> None: ...
    async def wait_for_idle(self) -> None: ...
    async def get_queue(self) -> QueueResult: ...
    async def clear_queue(self) -> QueueResult: ...

    # model and context
    async def set_model(self, provider: str, model_id: str) -> None: ...
    async def set_thinking_level(self, level: str) -> None: ...
    async def set_permission_mode(self, mode: str) -> None:
        """Switch the permission mode; `ValueError` for no mode, `PermissionModeError` for a forbidden one."""
        ...

    async def compact(self, custom_instructions: str | None = None) -> CompactResult: ...

    # sessions
    async def new_session(
        self, seed_messages: list[SeedMessage] | None = None, after_replace: AfterReplace | None = None
    ) -> ReplacedResult: ...
    async def switch_session(self, session: str, after_replace: AfterReplace | None = None) -> ReplacedResult: ...
    async def fork(
        self, entry_id: str, position: Literal["before", "at"] = "before", after_replace: AfterReplace | None = None
    ) -> ReplacedResult: ...
    async def navigate_tree(
        self, target_id: str, summarize: bool = False, custom_instructions: str | None = None
    ) -> NavigateResult: ...
    async def rename_session(self, name: str, session_id: str | None = None) -> None: ...
    async def delete_session(self, session_id: str) -> None: ...
    async def export(self, fmt: ExportFormat = "html", path: str | None = None) -> ExportResult: ...

    # --- the session tree and the kernel (the terminal app's /tree, /clone and /kernel) -------------
    async def set_label(self, entry_id: str, label: str | None) -> None:
        """Label an entry of the transcript (persisted as a `label` entry); None or "" clears it."""
        ...

    async def clone(self, after_replace: AfterReplace | None = None) -> ReplacedResult:
        """Replace the session with a copy of its active branch (root → leaf), as a new transcript."""
        ...

    async def interrupt_kernel(self) -> None:
        """Interrupt the code running in the session's kernel; `SessionError` when it has no kernel."""
        ...

    async def restart_kernel(self) -> None:
        """Restart the session's kernel (its state is gone); `BusyError` while code runs on it."""
        ...

    # questions
    async def answer_question(self, question_id: str, answer: QuestionAnswer | None) -> bool: ...

    # the user's shell commands (`!cmd` / `!!cmd` in the terminal app): run in the session's directory,
    # kept in its transcript, in the model's context unless `include_in_context` is False; `abort()`
    # cancels a command still running
    async def run_shell(
        self, command: str, include_in_context: bool = True, execution_id: str | None = None
    ) -> ShellResult:
        """Run the user's shell command in the session's directory; the answer comes when it ends. While it
        runs, every subscriber of every connection to the session gets its `ShellExecution*` events, named
        by `execution_id` (made up when None; a server without `shell-events` sends none)."""
        ...

    # process-local
    @property
    def extensions(self) -> ConnectionExtensions: ...
    def get_abort_signal(self) -> AbortSignal | None: ...
    def get_system_prompt_sync(self) -> str: ...
