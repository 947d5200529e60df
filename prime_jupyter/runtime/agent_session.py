"""`AgentSession`: one live session — model, thinking level, tools, queues, retry, compaction, events.

The loop is a function (`agent.loop.run_loop`); this class holds the state around it, persists every
finished message to the transcript as it happens (so a crash loses nothing acknowledged), and fans the
session events out to subscribers. Subscribers are plain callbacks and must be quick; one that raises is
logged and skipped, never allowed to break a run.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import JsonValue

from prime_jupyter.agent.loop import LoopConfig, run_loop
from prime_jupyter.agent.retry import RetryPolicy
from prime_jupyter.agent.tool import AnyTool
from prime_jupyter.ai.abort import AbortController, AbortSignal
from prime_jupyter.ai.history import History
from prime_jupyter.ai.models import Model, ThinkingLevel, clamp_thinking_level
from prime_jupyter.ai.registry import ModelRegistry
from prime_jupyter.ai.stream import StreamOptions
from prime_jupyter.ai.types import AssistantMessage, ImageContent, Message, TextContent, UserMessage
from prime_jupyter.errors import BusyError, PrimeError
from prime_jupyter.protocol.events import (
    AgentEnd,
    AgentStart,
    MessageEnd,
    MessageStart,
    ModelChanged,
    PermissionModeChanged,
    QueueUpdate,
    SessionEvent,
    SessionInfoChanged,
    ThinkingLevelChanged,
    TurnEnd,
)
from prime_jupyter.runtime.approvals import DECISION_ENTRY, Approvals
from prime_jupyter.runtime.compaction import CompactionRunner
from prime_jupyter.runtime.permissions import PermissionMode, PermissionPolicy, check_mode
from prime_jupyter.runtime.plan_mode import PLAN_NOTE, offer_plan_exit, withdraw
from prime_jupyter.runtime.policy import ToolPolicy
from prime_jupyter.runtime.queue import MessageQueue
from prime_jupyter.runtime.settings import Settings
from prime_jupyter.runtime.ui import SessionUI
from prime_jupyter.sessions.context import to_llm_message
from prime_jupyter.sessions.entries import BashExecutionMessage, CustomMessage, MessageEntry
from prime_jupyter.sessions.manager import SessionManager

if TYPE_CHECKING:
    from prime_jupyter.ai.errors import ProviderHints
    from prime_jupyter.kernel.namespace import NamespaceChange
    from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner
    from prime_jupyter.notebooks.workspace import NotebookWorkspace
    from prime_jupyter.protocol.common import RewindResult
    from prime_jupyter.protocol.snapshot import RunningShell
    from prime_jupyter.resources.extensions.host import ExtensionDiagnostic, ExtensionHost
    from prime_jupyter.resources.library import PromptLibrary
    from prime_jupyter.resources.mcp.host import McpHost
    from prime_jupyter.runtime.budget import SessionBudget
    from prime_jupyter.runtime.mcp_link import McpLink
    from prime_jupyter.runtime.namespace_watch import NamespaceWatch
    from prime_jupyter.runtime.shell import ShellRun
    from prime_jupyter.sessions.snapshots import SnapshotStore

__all__ = ["EXTENSION_CONTEXT", "AgentSession", "Listener"]

EXTENSION_CONTEXT = "extension_context"
"""The `customType` of the context a `before_prompt` hook added (sent to the model, not displayed)."""

log = logging.getLogger(__name__)

Listener = Callable[[SessionEvent], None]


class AgentSession:
    def __init__(
        self,
        *,
        manager: SessionManager,
        registry: ModelRegistry,
        settings: Settings,
        model: Model,
        thinking_level: ThinkingLevel,
        tools: list[AnyTool],
        system_prompt: str,
        disposers: list[Callable[[], Awaitable[None]]] | None = None,
        kernel: IpythonKernelProvisioner | None = None,
        permission_mode: PermissionMode = "auto",
        allowed_permission_modes: tuple[PermissionMode, ...] | None = None,
        interactive: bool = False,
        extensions: ExtensionHost | None = None,
        mcp: McpHost | None = None,
        wrap_tool: Callable[[AnyTool], AnyTool] = lambda tool: tool,
    ) -> None:
        self.manager = manager
        self.registry = registry
        self.settings = settings
        self.model = model
        self.thinking_level = clamp_thinking_level(model, thinking_level)
        self.tools = tools
        self.system_prompt = system_prompt
        self.steering = MessageQueue(settings.steering_mode)
        self.follow_ups = MessageQueue(settings.follow_up_mode)
        self._listeners: list[Listener] = []
        self._disposers = disposers or []
        self.kernel = kernel
        self.namespace = _namespace_watch(kernel)
        """Tells the model what the kernel holds, and the user what a run changed in it."""
        self._held_end: AgentEnd | None = None
        """The kernel of the session's `ipython` tool (None without one): the server reports its start."""
        self._controller: AbortController | None = None
        self._run_task: asyncio.Task[None] | None = None
        self._compactor = CompactionRunner(self)
        self._shell: AbortController | None = None
        self._shell_run: ShellRun | None = None
        self.ui = SessionUI(self.emit, settings.question_timeout_s)
        self.allowed_permission_modes = allowed_permission_modes
        """The modes this session may switch to (None: all); the server's `allowed_permission_modes`."""
        self.permissions = PermissionPolicy(permission_mode)
        self.approvals = Approvals(
            self.permissions,
            self.ui,
            lambda data: self.manager.append_custom(DECISION_ENTRY, data),
            interactive=interactive,
            timeout_s=settings.approval_timeout_s,
        )
        self.approvals.restore(manager.entries)
        self.extensions = extensions
        """The extensions this session's host loaded (None: there are none); shared with the sessions
        that replace this one in the same connection."""
        self.tool_policy = ToolPolicy(extensions, self.approvals)
        self._untold: list[tuple[str, str]] = []
        """Notices of extensions and MCP servers not shown yet (message, level): those from before anyone
        listened, and those of a run that has not sent `agent_start` (a `POST chat` stream begins there);
        told once it has."""
        self._run_starting = False
        self._extensions_started: asyncio.Future[None] | None = None
        self._stop_hearing: Callable[[], None] | None = None
        if extensions is not None:
            extensions.attach()
            extensions.bind(self)
            self._untold = [(str(d), "error") for d in extensions.diagnostics()]
            self._stop_hearing = extensions.subscribe(self._tell_diagnostic)
        self.mcp = mcp
        """The session's MCP servers (None: mcp.json configures none); started beside the session
        (`start_mcp`), their tools join `tools` as each server comes up (`runtime.mcp_link`)."""
        self._mcp = _mcp_link(mcp, self.tools, wrap_tool, self._tell, lambda: self.is_running)
        self._plan_offer: asyncio.Task[None] | None = None
        self._last_answer: AssistantMessage | None = None
        self.prompts: PromptLibrary | None = None
        """The prompt templates and skills `/<name>` and `/skill:<name>` expand to (None: none)."""
        self.reload_hook: Callable[[], list[str]] | None = None
        """What `/reload` reloads, answering the diagnostics: the host's sessions (a server: every live one,
        and their command registries); None: this session alone."""
        self.prompt_reloader: Callable[[], tuple[PromptLibrary, str]] | None = None
        """Reads the templates and skills again, and the system prompt that lists those skills (`reload`)."""
        self.budget: SessionBudget | None = None
        """The session's cost budgets (None: it has none), checked before each model request."""
        self.snapshots: SnapshotStore | None = None
        """Where what the file and notebook tools changed is kept for a rewind (None: beside the transcript)."""
        self.file_root: str | None = None
        """The folder the file tools act in (a server's root), which a rewind writes back inside too;
        None: anywhere."""
        self.notebooks: NotebookWorkspace | None = None
        """The notebook tools' workspace, which a rewind writes notebooks back through (None: no such tools)."""
        self.environment: Callable[[], dict[str, str]] | None = None
        """Makes the environment of the user's `!` commands (a server's, without its provider keys:
        `runtime.environment`); None: this process's."""

    # --- state ----------------------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return self.manager.session_id

    @property
    def permission_mode(self) -> PermissionMode:
        return self.permissions.mode

    @property
    def is_running(self) -> bool:
        return self._run_task is not None and not self._run_task.done()

    @property
    def cwd(self) -> str:
        """The working directory its transcript records (where the session was started)."""
        return self.manager.cwd

    @property
    def transcript_path(self) -> Path | None:
        """Its transcript file (which may not be written yet); None for an in-memory session."""
        return self.manager.path

    def save(self) -> None:
        """Write the transcript now, even before its first prompt (otherwise it is written with the first
        message), so that listings show it and it can be opened by id. No-op in memory."""
        self.manager.flush_now()

    def messages(self) -> History:
        """The model context at the leaf (messages loaded from the transcript stay data until read)."""
        return self.manager.build_context().messages

    # --- events ---------------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, event: SessionEvent) -> None:
        for listener in tuple(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("session event listener failed on %s", event.type)

    def _on_loop_event(self, event: SessionEvent) -> None:
        if isinstance(event, AgentStart) and self._run_starting:
            self.emit(event)
            self._run_starting = False
            untold, self._untold = self._untold, []
            for message, level in untold:
                self.ui.notify(message, level)
            return
        if self._mcp is not None:
            self._mcp.seen(event)
        if isinstance(event, MessageEnd):
            if self.budget is not None and isinstance(event.message, AssistantMessage):
                self.budget.add(event.message)
            entry = self.manager.append_message(event.message)
            event = MessageEnd(event.message, entry.id)
        if isinstance(event, AgentEnd) and self.namespace is not None:
            self._held_end = event  # sent by `_report_namespace`, once the run's changes are told
            return
        self.emit(event)

    # --- prompting ------------------------------------------------------------------------------

    async def prompt(
        self, text: str, images: list[ImageContent] | None = None, streaming_behavior: str | None = None
    ) -> None:
        """Run a turn for `text` and wait for the run; while a run is going, queue it as `steer` or
        `follow_up` instead (and return at once)."""
        if self.is_running and streaming_behavior is not None:
            self.queue_message(text, images, streaming_behavior)
            return
        await asyncio.shield(self.start_prompt(text, images))

    def start_prompt(self, text: str, images: list[ImageContent] | None = None) -> asyncio.Task[None]:
        """Start a run and return its task once accepted; raises before anything runs when it cannot
        (busy, no API key, a cost budget spent)."""
        if self.is_running:
            raise BusyError("a run is going: steer or queue a follow-up, or abort it first")
        command = self._session_command(text)
        if command is not None:
            self._run_task = asyncio.ensure_future(command)
            return self._run_task
        self.registry.api_key(self.model.provider)  # a missing key fails here, before anything runs
        if self.budget is not None:
            self.budget.check()
        text = self._expanded(text)
        withdraw(self._plan_offer)
        task = asyncio.ensure_future(self._run([_user_message(text, images)]))
        self._run_task = task
        return task

    def reload_resources(self) -> list[str]:
        """`/reload`: read the prompt templates and skills again (the next request's system prompt lists the
        skills found now); their diagnostics."""
        if self.prompt_reloader is None:
            return []
        self.prompts, self.system_prompt = self.prompt_reloader()
        return list(self.prompts.diagnostics)

    def _expanded(self, text: str) -> str:
        """A template's or a skill's prompt for `/<name> args` (`resources.library`); else `text`."""
        return self.prompts.expand(text) if self.prompts is not None else text

    def tell_at_first_run(self, message: str, level: str = "warning") -> None:
        """A notice for whoever follows the session's first run (said before anyone listens, it would be lost)."""
        self._untold.append((message, level))

    def queue_message(self, text: str, images: list[ImageContent] | None, streaming_behavior: str) -> None:
        text = self._expanded(text)
        if streaming_behavior in ("steer", "steering"):
            self._queue(self.steering, _user_message(text, images))
        elif streaming_behavior in ("follow_up", "followUp"):
            self._queue(self.follow_ups, _user_message(text, images))
        else:
            raise ValueError(f"streaming_behavior must be 'steer' or 'follow_up', not {streaming_behavior!r}")

    def steer(self, text: str, images: list[ImageContent] | None = None) -> None:
        self.queue_message(text, images, "steer")

    def follow_up(self, text: str, images: list[ImageContent] | None = None) -> None:
        self.queue_message(text, images, "follow_up")

    @property
    def abort_signal(self) -> AbortSignal | None:
        """The current run's abort signal (process-local)."""
        return self._controller.signal if self._controller is not None and self.is_running else None

    def clear_queue(self) -> tuple[list[str], list[str]]:
        steering = [m.text() for m in self.steering.clear()]
        follow_ups = [m.text() for m in self.follow_ups.clear()]
        self._emit_queue()
        return steering, follow_ups

    def _queue(self, queue: MessageQueue, message: UserMessage) -> None:
        queue.push(message)
        self._emit_queue()

    def _emit_queue(self) -> None:
        self.emit(QueueUpdate(self.steering.texts(), self.follow_ups.texts()))

    def _take(self, queue: MessageQueue) -> list[Message]:
        taken = queue.take()
        if taken:
            self._emit_queue()
        return taken

    async def abort(self) -> None:
        """Stop the run wherever it is; queued messages are kept for the next run."""
        if self._controller is not None:
            self._controller.abort()
        if self._shell is not None:
            self._shell.abort()
        self.ui.cancel_all("abort")
        await self.wait_for_idle()

    async def wait_for_idle(self) -> None:
        task = self._run_task
        if task is not None and not task.done():
            await asyncio.wait({task})

    # --- the run --------------------------------------------------------------------------------

    async def _run(self, prompts: list[Message]) -> None:
        self.start_mcp()
        self._run_starting = self.extensions is not None or self.mcp is not None
        try:
            await self._before_prompt(prompts)
            await self._tell_namespace()
            await self._turns(prompts)
            while queued := self._left_queued():
                await self._turns(queued)
        except Exception as exc:  # a run ends with an answer or a reason, never silently
            self._stopped_by(exc)
            return
        finally:
            self._run_starting = False
            if self._mcp is not None:
                self._mcp.release()
        self._plan_offer = offer_plan_exit(self, self._last_answer)

    def _left_queued(self) -> list[Message]:
        """A steering or follow-up message queued as the run ended: after the loop's last look at the queues,
        while the run's end was being told (the kernel's namespace report) or the context compacted. The run
        goes on with it rather than leaving it for the next prompt (`is_running` was true all along, so the
        message was queued, not refused). Not after an abort or a failed answer: then the queue waits, as
        abort promises."""
        last = self._last_answer
        if (self._controller is not None and self._controller.signal.aborted) or (
            last is not None and last.stop_reason in ("error", "aborted")
        ):
            return []
        return self._take(self.steering) or self._take(self.follow_ups)

    # --- extensions -----------------------------------------------------------------------------

    async def start_extensions(self) -> None:
        """Fire `session_start` (once per host; a replacement's host already started); the first run
        waits for it. Harmless without extensions."""
        if self.extensions is None:
            return
        if self._extensions_started is None:
            self._extensions_started = asyncio.ensure_future(self.extensions.session_start())
        await asyncio.shield(self._extensions_started)

    async def _before_prompt(self, prompts: list[Message]) -> None:
        """Append the context the extensions' `before_prompt` hooks add (the model reads it just before
        the prompt; no surface shows it)."""
        if self.extensions is None:
            return
        await self.start_extensions()
        text = "\n".join(p.text() for p in prompts if isinstance(p, UserMessage))
        for context in await self.extensions.before_prompt(text):
            message = CustomMessage(custom_type=EXTENSION_CONTEXT, content=context, display=False)
            self.manager.append_message(message)

    def _tell_diagnostic(self, diagnostic: ExtensionDiagnostic) -> None:
        self._tell(str(diagnostic), "error")

    def _tell(self, message: str, level: str) -> None:
        if self._run_starting:
            self._untold.append((message, level))
        else:
            self.ui.notify(message, level)

    # --- MCP servers ----------------------------------------------------------------------------

    def start_mcp(self) -> None:
        """Start the MCP servers in the background (once; needs the running loop): at once when the session
        is idle, else once the run's first answer is streaming. Harmless without any."""
        if self._mcp is not None:
            self._mcp.start()

    # --- the session's own slash commands --------------------------------------------------------

    def _session_command(self, text: str) -> Awaitable[None] | None:
        """A prompt that is one of the session's commands (`/mcp`, `/reload`, an extension's `/name args`)
        runs as that command instead of a turn, on every surface alike: a run of no messages
        (`agent_start`, the command's notices, `agent_end`), so a stream that follows runs ends as it does
        for a turn. None for any other prompt."""
        word, _, args = text.strip().partition(" ")
        if word == "/mcp":
            return self._command_run(self._mcp_report)
        if word == "/reload":
            return self._command_run(self._reload_report)
        extensions = self.extensions
        if extensions is not None and word[:1] == "/" and word[1:] in {c.name for c in extensions.commands()}:
            return self._command_run(lambda: extensions.run_command(word[1:], args.strip()))
        return None

    async def _command_run(self, command: Callable[[], object]) -> None:
        """Run a session command (its result awaited when it is a coroutine: an extension's command)."""
        self.emit(AgentStart())
        try:
            done = command()
            if inspect.isawaitable(done):
                await done
        finally:
            self.emit(AgentEnd([]))

    def _mcp_report(self) -> None:
        """`/mcp`: the servers, their state and their tools, as a notice."""
        if self._mcp is None:
            self.ui.notify("No MCP servers: add them to ~/.prime/agent/mcp.json or .prime/agent/mcp.json.")
            return
        self.ui.notify(self._mcp.report())

    def _reload_report(self) -> None:
        """`/reload`: the prompt templates and skills read again (where the host says: every live session
        of a server), and what was found, as notices."""
        problems = self.reload_hook() if self.reload_hook is not None else self.reload_resources()
        prompts = self.prompts
        found = f"{len(prompts.templates)} prompt templates and {len(prompts.skills)} skills" if prompts else "nothing"
        self.ui.notify(f"Reloaded the prompt templates and skills: {found}.")
        for problem in problems:
            self.ui.notify(problem, "warning")

    def notify(self, message: str, level: str = "info") -> None:
        """A notice on every surface of the session (an extension's `prime.notify`)."""
        self.ui.notify(message, level)

    def send_user_message(self, text: str) -> None:
        """The user's message from an extension: it runs now, or follows the run going on."""
        if self.is_running:
            self.follow_up(text)
        else:
            self.start_prompt(text)

    async def _tell_namespace(self) -> None:
        """Give the model the kernel's namespace when it changed since it was last given (`namespace_watch`)."""
        if self.namespace is None:
            return
        from prime_jupyter.runtime.namespace_watch import NAMESPACE_MESSAGE

        summary = await self.namespace.before_run()
        if summary is not None:
            message = CustomMessage(custom_type=NAMESPACE_MESSAGE, content=summary, display=False)
            self.manager.append_message(message)

    async def _report_namespace(self) -> None:
        """Tell every surface what the run's code did to the kernel, then end the run: `agent_end` stays the
        run's last event."""
        held, self._held_end = self._held_end, None
        try:
            found = await self.namespace.after_run() if self.namespace is not None else None
            if found:
                self.ui.notify(f"Kernel: {found.report()}")
                self._record_kernel_changes(found)
        finally:
            if held is not None:
                self.emit(held)

    def _record_kernel_changes(self, found: NamespaceChange) -> None:
        """What the run's code did to the kernel, for a rewind to name (the kernel keeps it)."""
        from prime_jupyter.runtime.rewind import KERNEL_CHANGES_ENTRY

        data: dict[str, JsonValue] = {
            "created": [v.name for v in found.created],
            "changed": [v.name for v in found.changed],
            "deleted": list(found.deleted),
            "report": found.report(),
        }
        try:
            self.manager.append_custom(KERNEL_CHANGES_ENTRY, data)
        except PrimeError as error:  # the run's end is told all the same
            log.warning("cannot record the kernel's changes: %s", error)

    def _stopped_by(self, error: Exception) -> None:
        """End a run that broke (a transcript that cannot be written, a bug) the way a failed model call
        ends: an error message, then `agent_end`, so every front end says why. Nothing is written: the
        transcript may be what failed."""
        if isinstance(error, PrimeError):
            reason = str(error)
        else:
            log.error("a run of session %s failed", self.session_id, exc_info=error)
            reason = f"internal error ({type(error).__name__}: {error}); see the log"
        failed = AssistantMessage(
            api=self.model.api,
            provider=self.model.provider,
            model=self.model.id,
            stop_reason="error",
            error_message=f"the run stopped: {reason}",
        )
        for event in (MessageStart(failed), MessageEnd(failed), TurnEnd(failed, []), AgentEnd([failed])):
            self.emit(event)

    async def _turns(self, prompts: list[Message]) -> None:
        assistant = await self._loop(prompts)
        if assistant is not None and self._compactor.overflowed(assistant):
            if await self._compactor.compact("overflow", will_retry=True):
                await self._loop([])
            return
        if assistant is not None and self._compactor.over_threshold(assistant):
            await self._compactor.compact("threshold")

    async def _loop(self, prompts: list[Message]) -> AssistantMessage | None:
        """One run of the loop; returns its last assistant message."""
        controller = AbortController()
        self._controller = controller
        retry = self.settings.retry
        provider = self.model.provider
        hints = self.registry.hints(provider)  # for an error's message: once a run, not a turn
        config = LoopConfig(
            model=self.model,
            system_prompt=self.system_prompt,
            tools=self.tools,
            options=lambda: self._stream_options(hints if self.model.provider == provider else None),
            take_steering=lambda: self._take(self.steering),
            take_follow_up=lambda: self._take(self.follow_ups),
            retry=RetryPolicy(
                enabled=retry.enabled,
                max_retries=retry.max_retries,
                base_delay_s=retry.base_delay_ms / 1000,
                max_delay_s=retry.max_delay_ms / 1000,
            ),
            gate=self.tool_policy,
            offers=self._offers,
            system_note=lambda: PLAN_NOTE if self.permissions.mode == "plan" else "",
        )
        try:
            added = await run_loop(prompts, self.messages(), config, self._on_loop_event, controller.signal)
        finally:
            await self._report_namespace()
        self._last_answer = next((m for m in reversed(added) if isinstance(m, AssistantMessage)), None)
        return self._last_answer

    def _offers(self, name: str) -> bool:
        extensions, mcp = self.extensions, self._mcp
        return (
            self.permissions.offers(name)
            and (extensions is None or extensions.offers(name))
            and (mcp is None or mcp.offers(name))
        )

    def _stream_options(self, hints: ProviderHints | None = None) -> StreamOptions:
        """The options of one model call; the key is looked up for each (a key changed in auth.json
        counts at once). `hints`: where the key comes from, for an error's message (looked up if None;
        it reads auth.json again and walks the model list, about 40 us). Over a cost budget it raises
        `BudgetExceededError` instead: the run stops before the request."""
        if self.budget is not None:
            self.budget.check()
        return StreamOptions(
            api_key=self.registry.api_key(self.model.provider),
            base_url=self.registry.base_url(self.model),
            thinking=self.thinking_level,
            session_id=self.session_id,
            hints=hints or self.registry.hints(self.model.provider),
        )

    # --- the user's shell commands (`!cmd`) -----------------------------------------------------

    async def run_shell(
        self, command: str, include_in_context: bool = True, execution_id: str | None = None
    ) -> tuple[BashExecutionMessage, str]:
        """Run the user's `command` in the session's directory and append it, with its output, to the
        transcript (and the model's context unless `include_in_context` is False); `abort()` cancels it.
        Its start, output and end are session events named by `execution_id` (`runtime.shell`).
        Returns the message and its entry id."""
        if self.is_running:
            raise BusyError("a run is going: wait for it to finish (or abort it) before running a command")
        if self._shell is not None:
            raise BusyError("a command is already running: wait for it, or abort it")
        from prime_jupyter.runtime.shell import ShellRun  # `!cmd` only: not imported to start

        controller = self._shell = AbortController()
        try:
            run = self._shell_run = ShellRun(command, include_in_context, execution_id, self.emit)
            env = self.environment() if self.environment is not None else None
            return await run.execute(self.cwd, controller.signal, self.manager.append_message, env)
        finally:
            self._shell = self._shell_run = None

    def running_shells(self) -> list[RunningShell]:
        """The user's shell command running now, as a snapshot tells it (none, or one: they run one at a time)."""
        running = self._shell_run.running() if self._shell_run is not None else None
        return [running] if running is not None else []

    # --- model, thinking, name, compaction ------------------------------------------------------

    def set_model(self, model: Model) -> None:
        self.model = model
        self.manager.append_model_change(model.provider, model.id)
        self.emit(ModelChanged(model.provider, model.id))
        self.set_thinking_level(self.thinking_level)

    def set_thinking_level(self, level: ThinkingLevel) -> None:
        clamped = clamp_thinking_level(self.model, level)
        changed = clamped != self.thinking_level
        self.thinking_level = clamped
        if changed:
            self.manager.append_thinking_level_change(clamped)
            self.emit(ThinkingLevelChanged(clamped))

    def set_permission_mode(self, mode: PermissionMode) -> None:
        """Switch the mode (recorded in the transcript; a run going on obeys it from its next tool call);
        `PermissionModeError` when the server forbids it."""
        check_mode(mode, self.allowed_permission_modes)
        if mode == self.permissions.mode:
            return
        self.permissions.mode = mode
        self.manager.append_permission_mode_change(mode)
        self.emit(PermissionModeChanged(mode))

    def set_name(self, name: str | None) -> None:
        self.manager.append_session_info(name)
        self.emit(SessionInfoChanged(name))

    async def navigate_tree(
        self, target_id: str, summarize: bool = False, custom_instructions: str | None = None
    ) -> str | None:
        """Move the leaf to `target_id` (a user message: to its parent, returning its text for the editor),
        optionally leaving a summary of the abandoned branch at the new position."""
        if self.is_running:
            raise BusyError("wait for the run to finish (or abort it) before moving in the tree")
        summary = None
        if summarize:
            target = self.manager.get_entry(target_id)
            parent = target.parent_id if target is not None and target.type == "message" else target_id
            abandoned = [m for m in self.manager.branch_between(self.manager.leaf_id, parent) if m.type == "message"]
            messages = [to_llm_message(m.message) for m in abandoned if isinstance(m, MessageEntry)]
            if messages:
                summary = await self._compactor.summarise(messages, None, custom_instructions)
        return self.manager.navigate(target_id, summary).editor_text

    async def rewind(self, entry_id: str) -> RewindResult:
        """Put the files and notebooks the agent changed since the user message `entry_id` back as they
        were, and continue from before it as a new branch (`runtime.rewind`)."""
        from prime_jupyter.runtime.rewind import rewind

        return await rewind(self, entry_id, self.notebooks)

    async def compact(self, instructions: str | None = None) -> bool:
        if self.is_running:
            raise BusyError("wait for the run to finish (or abort it) before compacting")
        return await self._compactor.compact("manual", instructions=instructions)

    async def dispose(self) -> None:
        await self.abort()
        self.ui.cancel_all("shutdown")
        if self.extensions is not None and self._stop_hearing is not None:
            self._stop_hearing()
            self._stop_hearing = None
            self.extensions.detach()
        if self._mcp is not None:
            mcp, self._mcp = self._mcp, None
            await mcp.dispose()
        for dispose in self._disposers:
            try:
                await dispose()
            except Exception:
                log.exception("disposing a session resource failed")


def _user_message(text: str, images: list[ImageContent] | None) -> UserMessage:
    if not images:
        return UserMessage(content=text)
    return UserMessage(content=[TextContent(text=text), *images])


def _mcp_link(
    host: McpHost | None,
    tools: list[AnyTool],
    wrap: Callable[[AnyTool], AnyTool],
    tell: Callable[[str, str], None],
    running: Callable[[], bool],
) -> McpLink | None:
    """The session's link to its MCP servers, imported only for a session with some."""
    if host is None:
        return None
    from prime_jupyter.runtime.mcp_link import McpLink

    return McpLink(host, tools, wrap, tell, running)


def _namespace_watch(kernel: IpythonKernelProvisioner | None) -> NamespaceWatch | None:
    """A watch on the session's kernel, imported only for a session with a kernel."""
    if kernel is None:
        return None
    from prime_jupyter.runtime.namespace_watch import NamespaceWatch

    return NamespaceWatch(kernel)
