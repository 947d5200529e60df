"""`InProcessAgentConnection`: the seam over a session running in this process.

It owns one live `AgentSession` at a time; new, switch, fork and clone replace it (the old one is disposed,
its kernel shut down), re-point the subscription, emit `SessionReplaced`, and only then run the
caller's `after_replace` hook.
"""

from __future__ import annotations

import asyncio
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.models import ThinkingLevel
from prime_jupyter.ai.stream import close_http_clients
from prime_jupyter.ai.types import ImageContent
from prime_jupyter.connection._replacement import build_replacement, run_after_replace
from prime_jupyter.connection.base import StreamingBehavior
from prime_jupyter.connection.door import SessionMode
from prime_jupyter.connection.types import (
    AfterReplace,
    ClientSetEditorText,
    ConnectionEvent,
    ConnectionListener,
    SessionEventReceived,
    SessionReplaced,
)
from prime_jupyter.errors import SessionError
from prime_jupyter.protocol.common import (
    CompactResult,
    ExportFormat,
    ExportResult,
    ModelRef,
    RewindResult,
    entry_label,
    session_name,
)
from prime_jupyter.protocol.events import SessionEvent
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
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session, sessions_dir
from prime_jupyter.runtime.library import (
    SessionManager,
    create_manager,
    delete_saved,
    list_summaries,
    open_manager,
    rename_saved,
    saved_rows,
)
from prime_jupyter.runtime.permissions import PermissionMode, parse_permission_mode
from prime_jupyter.runtime.session_ops import (
    clone_transcript,
    export_target,
    fork_transcript,
    parse_thinking_level,
    seed_transcript,
)
from prime_jupyter.runtime.tool_set import AnyTool
from prime_jupyter.runtime.views import (
    branch_messages,
    compact_result,
    connection_state,
    model_infos,
    session_view,
    shell_result,
    snapshot,
)

if TYPE_CHECKING:
    from prime_jupyter.connection.extensions import CommandRegistry, LocalExtensions
    from prime_jupyter.kernel.ops import KernelLauncher  # the kernel package is heavy: types only
    from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner
    from prime_jupyter.protocol.requests import ModelsResponse, SeedMessage
    from prime_jupyter.protocol.shell import ShellResult

__all__ = ["InProcessAgentConnection", "LocalTarget", "saved_session_rows", "saved_sessions"]

_open: weakref.WeakSet[InProcessAgentConnection] = weakref.WeakSet()
"""The connections of this process not disposed yet."""
_starting: set[asyncio.Task[None]] = set()
"""`session_start` dispatches under way (kept from the collector until they end)."""


@dataclass(frozen=True, slots=True)
class LocalTarget:
    """A session run in this process (`open_connection(LocalTarget(...))`).

    `mode`: "new" starts a transcript in `cwd`, "continue" the newest one of `cwd`, "resume" the one
    `resume` names (an id or unique prefix), "none" keeps nothing on disk. `model` is
    `provider/id[:thinking]`; `tools` the tool names (default: settings, then `ipython`)."""

    cwd: Path
    mode: SessionMode = "new"
    resume: str | None = None
    model: str | None = None
    thinking: ThinkingLevel | None = None
    tools: tuple[str, ...] | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    context_files: bool = True
    interactive: bool = False
    """A person can answer questions (terminal app, notebook): the `ask` tool is offered."""
    agent_dir: Path | None = None
    kernel_launcher: KernelLauncher | None = None
    """Where the `ipython` tool's kernel comes from (a notebook passes its own shell); None: a kernel of
    this process's own."""
    extra_tools: tuple[AnyTool, ...] = ()
    """Tools of the caller's own (`prime_jupyter.Session.tool`), besides the named ones."""
    permission_mode: PermissionMode | None = None
    """`--permission-mode`; None: the transcript's, settings.json's, else `ask` when `interactive`, else `auto`."""
    check_servers: bool = True
    """Before continuing a saved transcript, ask the running Jupyter servers whether one has it open, and
    refuse then, naming the `jupyter prime attach` command that joins it (`_held`): two writers fork it."""

    def options(self) -> SessionOptions:
        return SessionOptions(
            cwd=self.cwd,
            model=self.model,
            thinking=self.thinking,
            tools=list(self.tools) if self.tools is not None else None,
            system_prompt=self.system_prompt,
            append_system_prompt=self.append_system_prompt,
            context_files=self.context_files,
            mode=self.mode,
            resume=self.resume,
            agent_dir=self.agent_dir,
            interactive=self.interactive,
            kernel_launcher=self.kernel_launcher,
            extra_tools=list(self.extra_tools),
            permission_mode=self.permission_mode,
            before_continuing=self._refuse_if_held if self.check_servers else None,
        )

    def _refuse_if_held(self, session_id: str, path: Path) -> None:
        from prime_jupyter.connection._held import refuse_if_held

        refuse_if_held(session_id, path, self.cwd)


class InProcessAgentConnection:
    def __init__(self, session: AgentSession, options: SessionOptions | None = None) -> None:
        self.session = session
        self._options = options or SessionOptions(cwd=Path(session.manager.cwd))
        self._listeners: list[ConnectionListener] = []
        self._seq = 0  # session events forwarded: each one's place; a snapshot taken now holds them all
        self._unsubscribe = session.subscribe(self._forward)
        session.reload_hook = self.reload_resources
        _open.add(self)
        self._extensions: LocalExtensions | None = None
        self._start_extensions(session)

    @classmethod
    def create(cls, options: SessionOptions) -> InProcessAgentConnection:
        return cls(create_agent_session(options), options)

    @classmethod
    def open(cls, target: LocalTarget) -> InProcessAgentConnection:
        """The session `target` names, built here; raises `PrimeError`s a user can act on."""
        return cls.create(target.options())

    # --- start-up (the terminal app's launch): not part of the `AgentConnection` seam -------------

    # --- events ---------------------------------------------------------------------------------

    def subscribe(self, listener: ConnectionListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _forward(self, event: SessionEvent) -> None:
        self._seq += 1
        self._emit(SessionEventReceived(event, seq=self._seq))

    def _emit(self, event: ConnectionEvent) -> None:
        for listener in tuple(self._listeners):
            listener(event)

    async def dispose(self) -> None:
        """Close the session (its kernel too); the last open connection also closes the provider
        connections of this event loop."""
        self._unsubscribe()
        await self.session.dispose()
        _open.discard(self)
        if not _open:
            await close_http_clients()

    # --- reads ----------------------------------------------------------------------------------

    async def get_state(self) -> ConnectionState:
        return connection_state(self.session)

    async def get_snapshot(self, tail: int | None = None) -> AttachSnapshot:
        return snapshot(self.session, cursor=self._seq, tail=tail)

    async def get_messages(self) -> MessagesResult:
        messages, ids = branch_messages(self.session.manager)
        return MessagesResult(messages=messages, entry_ids=ids)

    async def get_session_view(self) -> SessionView:
        return session_view(self.session.manager, str(self._sessions_dir()))

    async def get_available_models(self) -> ModelsResponse:
        from prime_jupyter.protocol.requests import ModelsResponse  # the chat routes' models: imported on use

        current = ModelRef(provider=self.session.model.provider, id=self.session.model.id)
        return ModelsResponse(models=model_infos(self.session.registry), current=current)

    async def list_sessions(self, scope: Literal["current", "all"] = "current") -> SessionsResult:
        cwd = self.session.manager.cwd if scope == "current" else None
        live = {self.session.session_id: self.session}
        return SessionsResult(sessions=await asyncio.to_thread(list_summaries, self._sessions_dir(), cwd, live))

    # --- prompting ------------------------------------------------------------------------------

    async def prompt(
        self,
        message: str,
        images: list[ImageContent] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
    ) -> PromptResult:
        if self.session.is_running and streaming_behavior is not None:
            self.session.queue_message(message, images, streaming_behavior)
            return PromptResult(queued=streaming_behavior)
        self.session.start_prompt(message, images)
        return PromptResult()

    async def steer(self, message: str, images: list[ImageContent] | None = None) -> PromptResult:
        self.session.steer(message, images)
        return PromptResult(queued="steer")

    async def follow_up(self, message: str, images: list[ImageContent] | None = None) -> PromptResult:
        self.session.follow_up(message, images)
        return PromptResult(queued="follow_up")

    async def abort(self) -> None:
        await self.session.abort()

    async def wait_for_idle(self) -> None:
        await self.session.wait_for_idle()

    async def get_queue(self) -> QueueResult:
        return QueueResult(steering=self.session.steering.texts(), follow_up=self.session.follow_ups.texts())

    async def clear_queue(self) -> QueueResult:
        steering, follow_up = self.session.clear_queue()
        return QueueResult(steering=steering, follow_up=follow_up)

    # --- model and context ----------------------------------------------------------------------

    async def set_model(self, provider: str, model_id: str) -> None:
        self.session.set_model(self.session.registry.resolve(provider, model_id))

    async def set_thinking_level(self, level: str) -> None:
        parsed = parse_thinking_level(level)
        if parsed is not None:
            self.session.set_thinking_level(parsed)

    async def set_permission_mode(self, mode: str) -> None:
        self.session.set_permission_mode(parse_permission_mode(mode, "mode"))

    async def compact(self, custom_instructions: str | None = None) -> CompactResult:
        before = len(self.session.manager.entries)
        return compact_result(self.session.manager, before, await self.session.compact(custom_instructions))

    # --- sessions -------------------------------------------------------------------------------

    async def new_session(
        self, seed_messages: list[SeedMessage] | None = None, after_replace: AfterReplace | None = None
    ) -> ReplacedResult:
        manager = create_manager(self.session.cwd, self._sessions_dir())
        seed_transcript(manager, seed_messages or [], self.session.model)
        return await self._replace(manager, after_replace, "new")

    async def switch_session(self, session: str, after_replace: AfterReplace | None = None) -> ReplacedResult:
        manager = await asyncio.to_thread(open_manager, self._sessions_dir(), session)
        check = self._options.before_continuing
        if check is not None and manager.path is not None:
            await asyncio.to_thread(check, manager.session_id, manager.path)
        return await self._replace(manager, after_replace, "resume")

    async def fork(
        self, entry_id: str, position: Literal["before", "at"] = "before", after_replace: AfterReplace | None = None
    ) -> ReplacedResult:
        forked = fork_transcript(self.session, entry_id, position, self._sessions_dir())
        result = await self._replace(forked.manager, after_replace, "fork", selected_text=forked.selected_text)
        if forked.selected_text:
            self._emit(ClientSetEditorText(forked.selected_text))
        return result

    async def navigate_tree(
        self, target_id: str, summarize: bool = False, custom_instructions: str | None = None
    ) -> NavigateResult:
        editor_text = await self.session.navigate_tree(target_id, summarize, custom_instructions)
        return NavigateResult(editor_text=editor_text)

    async def rewind(self, entry_id: str) -> RewindResult:
        return await self.session.rewind(entry_id)

    async def rename_session(self, name: str, session_id: str | None = None) -> None:
        name = session_name(name)  # the rules of the command over HTTP
        if session_id is None or session_id == self.session.session_id:
            self.session.set_name(name)
            return
        await asyncio.to_thread(rename_saved, self._sessions_dir(), session_id, name)

    async def delete_session(self, session_id: str) -> None:
        if session_id == self.session.session_id:
            raise SessionError("this session is open here: switch to another one before deleting it")
        await asyncio.to_thread(delete_saved, self._sessions_dir(), session_id)

    async def export(self, fmt: ExportFormat = "html", path: str | None = None) -> ExportResult:
        from prime_jupyter.runtime.export import export_session

        target = await asyncio.to_thread(
            export_session, self.session.manager, fmt, export_target(self.session.cwd, path)
        )
        return ExportResult(path=str(target), format=fmt)

    # --- the session tree and the kernel (the terminal app's /tree, /clone and /kernel) -------------

    async def set_label(self, entry_id: str, label: str | None) -> None:
        self.session.manager.append_label(entry_id, entry_label(label))  # the rules of the command over HTTP

    async def clone(self, after_replace: AfterReplace | None = None) -> ReplacedResult:
        cloned = clone_transcript(self.session, self._sessions_dir())
        return await self._replace(cloned.manager, after_replace, "clone")

    async def interrupt_kernel(self) -> None:
        kernel = self._kernel()
        if not await kernel.interrupt():
            raise SessionError(f"the kernel is {kernel.state}: there is nothing running to interrupt")

    async def restart_kernel(self) -> None:
        from prime_jupyter.kernel.provisioner import LOST_STATE  # kernel code: imported on use

        await self._kernel().restart(f"The user restarted the kernel: {LOST_STATE}.")

    def _kernel(self) -> IpythonKernelProvisioner:
        kernel = self.session.kernel
        if kernel is None:
            raise SessionError("this session has no kernel (the ipython tool is not among its tools)")
        return kernel

    # --- questions ------------------------------------------------------------------------------

    async def answer_question(self, question_id: str, answer: QuestionAnswer | None) -> bool:
        return self.session.ui.answer(question_id, answer)

    # --- the user's shell commands (`!cmd`) -----------------------------------------------------

    async def run_shell(
        self, command: str, include_in_context: bool = True, execution_id: str | None = None
    ) -> ShellResult:
        execution_id = execution_id or uuid.uuid4().hex[:12]
        message, entry_id = await self.session.run_shell(command, include_in_context, execution_id)
        return shell_result(message, entry_id, execution_id)

    # --- process-local --------------------------------------------------------------------------

    @property
    def extensions(self) -> LocalExtensions:
        if self._extensions is None:  # made when a front end first asks: a headless run never imports them
            from prime_jupyter.connection.extensions import LocalExtensions

            self._extensions = LocalExtensions(self._command_registry())
        return self._extensions

    def _command_registry(self) -> CommandRegistry:
        """The built-in commands with their completers, then the session's templates, skills and extension
        commands."""
        from prime_jupyter.connection.extensions import BUILTIN_COMMANDS, CommandInfo, CommandRegistry

        registry = CommandRegistry(BUILTIN_COMMANDS)
        registry.set_completer("model", self._complete_model)
        registry.set_completer("thinking", self._complete_thinking)
        registry.set_completer("export", lambda prefix: ["html", "jsonl", "ipynb"])
        registry.set_completer("kernel", lambda prefix: ["interrupt", "restart"])
        for command in self.session.prompts.commands() if self.session.prompts is not None else ():
            info = CommandInfo(command.name, command.description, command.arguments, command.source)
            registry.register(info)
        for extension_command in self.session.extensions.commands() if self.session.extensions else ():
            info = CommandInfo(
                extension_command.name, extension_command.description, extension_command.arguments, "extension"
            )
            registry.register(info)
        return registry

    def reload_resources(self) -> list[str]:
        """`/reload`: the session reads its templates and skills again, and the registry lists them; the
        diagnostics."""
        problems = self.session.reload_resources()
        if self._extensions is not None:
            self._extensions.commands_registry = self._command_registry()
        return problems

    def get_abort_signal(self) -> AbortSignal | None:
        return self.session.abort_signal

    def get_system_prompt_sync(self) -> str:
        return self.session.system_prompt

    def _complete_model(self, prefix: str) -> list[str]:
        registry = self.session.registry
        available = [m for m in registry.models if registry.has_key(m.provider)]
        return [f"{m.provider}/{m.id}" for m in available or registry.models]

    def _complete_thinking(self, prefix: str) -> list[str]:
        from prime_jupyter.ai.models import supported_thinking_levels

        return list(supported_thinking_levels(self.session.model))

    # --- replacement ----------------------------------------------------------------------------

    def _start_extensions(self, session: AgentSession) -> None:
        """`session_start` of the session's extensions, begun now when there is a loop here (else by the
        first run), and its MCP servers beside it."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        session.start_mcp()
        if session.extensions is None:
            return
        task = loop.create_task(session.start_extensions())
        _starting.add(task)
        task.add_done_callback(_starting.discard)

    def _sessions_dir(self) -> Path:
        return sessions_dir(self._options.agent_dir)

    async def _replace(
        self,
        manager: SessionManager,
        after_replace: AfterReplace | None,
        reason: Literal["new", "resume", "fork", "clone"],
        selected_text: str | None = None,
    ) -> ReplacedResult:
        current = self.session
        replacement = await build_replacement(current, self._options, manager)
        self._unsubscribe()
        await current.dispose()
        self.session = replacement
        self._unsubscribe = replacement.subscribe(self._forward)
        replacement.reload_hook = self.reload_resources
        snap = snapshot(replacement, cursor=self._seq)
        self._emit(SessionReplaced(snap))
        if replacement.extensions is not None and replacement.extensions is current.extensions:
            await replacement.extensions.session_switch(current.session_id, reason)
        else:
            self._start_extensions(replacement)
        await run_after_replace(after_replace, lambda text: self.prompt(text), self._emit)
        return ReplacedResult(selected_text=selected_text, snapshot=snap)


def saved_sessions(cwd: Path | None, agent_dir: Path | None = None) -> SessionsResult:
    """The saved sessions of this machine (those started in `cwd`, or all), newest first, without opening
    one: `jupyter prime sessions` needs no model or key. Blocking: reads every transcript."""
    return SessionsResult(sessions=list_summaries(sessions_dir(agent_dir), str(cwd) if cwd else None, {}))


def saved_session_rows(cwd: Path | None, agent_dir: Path | None = None) -> list[str]:
    """`saved_sessions` as the command line prints them: `<id>  <age>  "<name>"  <first prompt>` (and the
    folder, when `cwd` is None). Blocking, like `saved_sessions`."""
    return saved_rows(sessions_dir(agent_dir), str(cwd) if cwd else None)
