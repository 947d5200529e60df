"""`PrimeBridge`: the live sessions of this server, and what both route families ask of them.

One bridge per server (`PrimeApp` makes it). It opens sessions (new, or resumed from their transcript
on first use), keeps each as a `LiveSession` (mapper, ring buffer, listeners), answers and persists
their questions (`PendingDialogRegistry`), reports kernel readiness, and closes everything on
shutdown. The chat routes (`server.chat`) and the connection routes (`server.attach`) both go through
it, so a session opened by one is the same live session for the other. Sessions keep running when
their clients go away. Transcript listing and other file work runs in threads; the event loop is
never blocked on a directory scan.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING

from prime_jupyter import gc_policy
from prime_jupyter.ai.models import ThinkingLevel
from prime_jupyter.ai.registry import ModelRegistry, parse_model_ref
from prime_jupyter.connection.extensions import BUILTIN_COMMANDS, CommandInfo, CommandRegistry
from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.errors import OutsideRootError, PrimeError, SessionNotFoundError
from prime_jupyter.protocol.requests import (
    ChatNewRequest,
    CommandEntry,
    CommandsResponse,
    ModelInfo,
    ModelRef,
    ModelsResponse,
    SessionSummary,
)
from prime_jupyter.resources.library import PromptLibrary
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.budget import UsageLedger
from prime_jupyter.runtime.environment import Environment, without_provider_keys
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session, new_session_model
from prime_jupyter.runtime.permissions import PERMISSION_MODES, PermissionMode, parse_permission_mode
from prime_jupyter.runtime.session_ops import seed_session, thinking_level
from prime_jupyter.runtime.views import model_infos
from prime_jupyter.server.config import BridgeConfig
from prime_jupyter.server.host.culling import KernelCuller, ReleasableKernel
from prime_jupyter.server.host.dialogs import PendingDialogRegistry
from prime_jupyter.server.host.kernels import KernelList, KernelReadiness, SpecLookup, session_kernel
from prime_jupyter.server.host.live import LiveSession
from prime_jupyter.server.host.summaries import live_summary, saved_summary
from prime_jupyter.sessions.listing import (
    SessionInfo,
    delete_session,
    find_listed_session,
    list_sessions,
    rename_session,
)
from prime_jupyter.sessions.manager import SessionManager

if TYPE_CHECKING:
    from prime_jupyter.kernel.ops import KernelLauncher
    from prime_jupyter.notebooks.workspace import NotebookWorkspace

__all__ = ["SESSION_ID", "PrimeBridge", "is_session_id"]

log = logging.getLogger(__name__)

SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,159}$")
"""What a session id looks like (ids are UUIDv7 strings; never a path)."""


def is_session_id(value: str) -> bool:
    return SESSION_ID.match(value) is not None


class PrimeBridge:
    def __init__(
        self,
        config: BridgeConfig,
        *,
        kernel_launcher: KernelLauncher | None = None,
        kernel_manager: KernelList | None = None,
        spec_lookup: SpecLookup | None = None,
        kernel_capacity: Callable[[], str | None] | None = None,
        notebooks: Callable[[Path, float], NotebookWorkspace] | None = None,
        environment: Environment | None = None,
    ):
        """`kernel_launcher` starts the sessions' kernels (`ServerKernelLauncher` over the server's kernel
        manager; None: the runtime's own local launcher); `kernel_manager` is that same manager, whose
        kernel list `GET info` counts; `spec_lookup` checks the kernel spec once; `kernel_capacity` says
        why no kernel can be started now (the launcher's cap), else None; `notebooks` makes a session's
        notebook workspace (the server's contents and session managers; None: notebooks on disk);
        `environment` makes that of the sessions' commands (default: the server's without its provider
        keys and `hidden_environment`; the launcher's kernels get theirs from the launcher)."""
        self.config = config
        self.usage = UsageLedger(config.agent_dir)
        self.environment = environment or without_provider_keys(config.agent_dir, config.hidden_environment)
        self.notebooks = notebooks
        self.kernel_launcher = kernel_launcher
        self.dialogs = PendingDialogRegistry(config.questions_dir)
        self.kernels = KernelReadiness(config.kernel_name, spec_lookup, kernel_manager, kernel_capacity)
        self.culler = KernelCuller(config.cull, kernel_manager, self._provisioners)
        self._live: dict[str, LiveSession] = {}
        self._opening = asyncio.Lock()
        self._deleting: dict[str, asyncio.Future[None]] = {}
        """Sessions being deleted (until their file is gone): `get` refuses them, so a client still polling
        cannot reopen one from the file its delete is about to remove."""
        self._tasks: set[asyncio.Future[None]] = set()
        self._started: asyncio.Future[None] | None = None
        self.stopping = False
        """Set when the server stops: a request that still reaches it (over a kept-alive connection) is
        refused, never opens a session or starts a run in a process about to exit."""
        self.swept = asyncio.Event()
        """Set once the questions left by earlier server processes are cancelled (after `start`)."""

    # --- life cycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Check the kernel spec and cancel the questions earlier processes left pending. Idempotent; every
        request waits for it, so the first request of the extension runs it (not server start-up, which
        stays cheap: design.md D10)."""
        if self._started is None:
            self._started = asyncio.ensure_future(self._start())
        await asyncio.shield(self._started)

    async def _start(self) -> None:
        self.spawn(self._sweep_questions())
        await self.kernels.check()
        if self.kernel_launcher is not None:  # the server's kernels: the culler reads their activity
            self.culler.start()

    async def shutdown(self) -> None:
        """Cancel pending questions (`shutdown`), stop every run, close every stream."""
        self.stopping = True
        self.culler.stop()
        lives = list(self._live.values())
        self._live.clear()
        for live in lives:
            self.kernels.forget(live.session_id)
            live.session.ui.cancel_all("shutdown")
        await asyncio.gather(*(self._dispose(live) for live in lives))
        for task in list(self._tasks):
            task.cancel()
        await self.dialogs.flush()

    def spawn(self, work: Coroutine[object, object, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- opening sessions -----------------------------------------------------------------------

    def live(self, session_id: str) -> LiveSession | None:
        """The session if it is open in this server."""
        return self._live.get(session_id)

    def live_sessions(self) -> list[LiveSession]:
        return list(self._live.values())

    def _provisioners(self) -> list[ReleasableKernel]:
        """The kernels of the open sessions (what the culler may release)."""
        kernels = (getattr(live.session, "kernel", None) for live in self._live.values())
        return [kernel for kernel in kernels if isinstance(kernel, ReleasableKernel)]

    async def get(self, session_id: str) -> LiveSession:
        """The live session, opening its transcript if needed; `SessionNotFoundError` when there is none."""
        live = self._live.get(session_id)
        if live is not None:
            return live
        async with self._opening:
            live = self._live.get(session_id)
            if live is not None:
                return live
            if session_id in self._deleting:
                raise SessionNotFoundError(f"no session {session_id}: it is being deleted")
            info = await asyncio.to_thread(self._saved, session_id)
            self._check_inside_root(info)
            manager = await asyncio.to_thread(_open_transcript, info.path, self.config.tune_process_memory)
            options = self._options(Path(manager.cwd), manager=manager)
            live = self._register(create_agent_session(options), options)
            await self.dialogs.reconcile(live)
            return live

    async def create(self, request: ChatNewRequest, cwd: Path) -> LiveSession:
        """A new session in `cwd`, its transcript written at once (so lists show it before any answer)."""
        model = f"{request.model.provider}/{request.model.id}" if request.model else self.config.default_model
        level = thinking_level(request.thinking_level) if request.thinking_level else None
        options = self._options(cwd, model=model, thinking=level)
        if request.permission_mode is not None:
            options.permission_mode = parse_permission_mode(request.permission_mode)
        if request.notebook_path is not None:
            self._check_notebook(cwd, request.notebook_path)
            options.notebook = request.notebook_path
        session = create_agent_session(options)
        seed_session(session, request.seed_messages)
        return self._register(session, options)

    def _check_inside_root(self, info: SessionInfo) -> None:
        """A saved session works where it was started; a server runs only sessions inside its root (its
        kernel and tools would otherwise start in a folder Jupyter's own routes refuse), unless
        `allow_outside_root`. Sessions `jupyter prime` made elsewhere in the same agent dir stay the
        terminal's."""
        if not self._inside_root(info):
            raise OutsideRootError(
                f"session {info.id} works in {info.cwd}, outside this server's root {self.config.root_dir}: the "
                f"server does not run it. Continue it there (cd {info.cwd} && jupyter prime -r {info.id}), or "
                "start the server with c.PrimeApp.allow_outside_root = True"
            )

    def _inside_root(self, info: SessionInfo) -> bool:
        root = self.config.confined_to
        if root is None:
            return True
        try:
            return Path(info.cwd).resolve().is_relative_to(root.resolve())
        except (OSError, ValueError):
            return False

    def _runnable(self, cwd: str | None) -> list[SessionInfo]:
        """The saved sessions (of `cwd`, if given) this server runs (blocking: call from a thread)."""
        return [info for info in list_sessions(self.config.sessions_dir, cwd) if self._inside_root(info)]

    def _check_notebook(self, cwd: Path, path: str) -> None:
        """A `ToolError` (a 400 saying why) before any transcript is written, for a path outside the root
        or not a notebook's."""
        if self.notebooks is not None:
            self.notebooks(cwd, 0.0).store.locate(path)

    def _options(
        self,
        cwd: Path,
        *,
        model: str | None = None,
        thinking: ThinkingLevel | None = None,
        manager: SessionManager | None = None,
    ) -> SessionOptions:
        options = SessionOptions(
            cwd=cwd,
            model=model,
            thinking=thinking,
            manager=manager,
            agent_dir=self.config.agent_dir,
            interactive=True,
            kernel_launcher=self.kernel_launcher,
            kernel_name=self.config.kernel_name,
            tool_timeout_s=self.config.tool_timeout_s,
            default_permission_mode=_mode(self.config.default_permission_mode),
            allowed_permission_modes=_modes(self.config.allowed_permission_modes),
            allowed_models=self.config.allowed_models,
            session_budget_usd=self.config.session_budget_usd,
            daily_budget_usd=self.config.daily_budget_usd,
            usage_ledger=self.usage,
            notebooks=self.notebooks,
            file_root=self.config.confined_to,
            policy_extensions=self.config.policy_extensions,
            environment=self.environment,
        )
        return options

    def _register(self, session: AgentSession, options: SessionOptions) -> LiveSession:
        if self.config.dialog_timeout_s > 0:  # else the session's settings.json (default: wait)
            session.ui.default_timeout_s = self.config.dialog_timeout_s
        connection = InProcessAgentConnection(session, options)
        session.reload_hook = self.reload_resources  # `/reload` in any session reloads every live one
        live = LiveSession(connection, self.config.ring_size, tune_process_memory=self.config.tune_process_memory)
        self._live[live.session_id] = live
        self.dialogs.watch(live)
        kernel = session_kernel(session)
        if kernel is not None:
            self.kernels.track(live.session_id, kernel)
        return live

    def _saved(self, session_id: str) -> SessionInfo:
        """The transcript of a session by its exact id (blocking: call from a thread)."""
        if not is_session_id(session_id):
            raise SessionNotFoundError(f"{session_id!r} is not a session id")
        try:
            info = find_listed_session(self.config.sessions_dir, session_id)
        except SessionNotFoundError:
            info = None
        if info is None or info.id != session_id:
            raise SessionNotFoundError(f"no session {session_id}")
        return info

    async def _sweep_questions(self) -> None:
        try:
            await self._sweep()
        finally:
            self.swept.set()

    async def _sweep(self) -> None:
        for session_id in await asyncio.to_thread(self.dialogs.stored_session_ids):
            async with self._opening:
                if session_id not in self._live:
                    await self._reconcile_saved(session_id)

    async def _reconcile_saved(self, session_id: str) -> None:
        try:
            path: Path | None = (await asyncio.to_thread(self._saved, session_id)).path
        except SessionNotFoundError:
            path = None  # the session is gone: only its question file is left to remove
        try:
            cancelled = await asyncio.to_thread(self.dialogs.reconcile_saved, session_id, path)
            if cancelled:
                self.dialogs.swept[session_id] = cancelled
        except Exception:
            log.exception("cannot cancel the questions left pending in session %s", session_id)

    # --- listing, renaming, deleting ------------------------------------------------------------

    async def summaries(self, cwd: str | None = None) -> list[SessionSummary]:
        """Every session this server may run, newest first: live ones as they are now, the rest as saved
        (not those working outside its root: `_check_inside_root`)."""
        infos = await asyncio.to_thread(self._runnable, cwd)
        infos = [i for i in infos if i.id not in self._deleting]
        listed = [saved_summary(i, self._live[i.id].session) if i.id in self._live else saved_summary(i) for i in infos]
        return sorted(listed, key=lambda s: s.updated_at, reverse=True)

    def live_summaries(self) -> list[SessionSummary]:
        """The sessions open in this server (`running` or `idle`), as they are now."""
        return [live_summary(live) for live in self._live.values() if live.session_id not in self._deleting]

    async def rename(self, session_id: str, name: str) -> None:
        live = self._live.get(session_id)
        if live is not None:
            await live.connection.rename_session(name)
            return
        if session_id in self._deleting:
            raise SessionNotFoundError(f"no session {session_id}: it is being deleted")
        info = await asyncio.to_thread(self._saved, session_id)
        await asyncio.to_thread(rename_session, info.path, name)

    async def delete(self, session_id: str) -> None:
        """Cancel its questions, stop its run, close its streams, remove its transcript.

        The id is marked as deleting before anything else, and taken out of the open set under the lock
        that opening takes, so no request can open it again (from the file still there) until the file
        is gone. A second delete meanwhile waits for the first."""
        running = self._deleting.get(session_id)
        if running is not None:
            await asyncio.shield(running)
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._deleting[session_id] = done
        try:
            await self._delete(session_id)
        except BaseException as exc:
            done.set_exception(exc)
            done.exception()  # retrieved: a failure is the first caller's to report
            raise
        else:
            done.set_result(None)
        finally:
            del self._deleting[session_id]

    async def _delete(self, session_id: str) -> None:
        async with self._opening:  # an open under way finishes first, and is then closed here
            live = self._live.pop(session_id, None)
        self.kernels.forget(session_id)
        if live is not None:
            live.session.ui.cancel_all("shutdown")
            await self._dispose(live)
            path = live.session.transcript_path
        else:
            path = (await asyncio.to_thread(self._saved, session_id)).path
        if path is not None and path.exists():
            await asyncio.to_thread(delete_session, path)
        self.dialogs.forget(session_id)

    @staticmethod
    async def _dispose(live: LiveSession) -> None:
        try:
            await asyncio.wait_for(live.dispose(), 30)
        except Exception:
            log.exception("closing session %s failed", live.session_id)
        live.close()

    # --- models ---------------------------------------------------------------------------------

    async def commands(self, session_id: str | None) -> CommandsResponse:
        """The command registry of the named session (opened if it is saved), or of a new session in the
        root: the built-in commands, then the templates and skills found from the root."""
        if session_id:
            live = await self.get(session_id)
            listed = live.connection.extensions.commands()
        else:
            listed = await asyncio.to_thread(_root_commands, self.config.agent_dir, self.config.root_dir)
        return CommandsResponse(
            commands=[
                CommandEntry(name=c.name, description=c.description, arguments=c.arguments, source=c.source)
                for c in listed
            ]
        )

    def reload_resources(self) -> list[str]:
        """`/reload` in every live session: their templates and skills read again; the diagnostics."""
        return [problem for live in self._live.values() for problem in live.connection.reload_resources()]

    async def models(self, session_id: str | None) -> ModelsResponse:
        """The models; `current` is the open session's model, or (no session named) the model a new
        session gets: what the panel's picker names as "Default (provider/id)"; `thinkingLevel` is the
        level that one runs at, so the thinking picker shows what runs."""
        models = await asyncio.to_thread(_model_infos, self.config.agent_dir, self.config.allowed_models)
        live = self._live.get(session_id) if session_id else None
        if live is not None:
            model = live.session.model
            return ModelsResponse(
                models=models,
                current=ModelRef(provider=model.provider, id=model.id),
                thinking_level=live.session.thinking_level,
            )
        current, level = await asyncio.to_thread(self._default_model)
        return ModelsResponse(models=models, current=current, thinking_level=level)

    def _default_model(self) -> tuple[ModelRef | None, ThinkingLevel | None]:
        """What a new session in the root directory would use, and at which thinking level; a configured
        default that does not resolve is still named as written (starting a session then says what is
        wrong with it)."""
        try:
            model, level = new_session_model(
                self.config.agent_dir, self.config.root_dir, self.config.default_model, self.config.allowed_models
            )
        except PrimeError:
            return _as_written(self.config.default_model), None
        return ModelRef(provider=model.provider, id=model.id), level

    @staticmethod
    async def set_model(live: LiveSession, ref: ModelRef, level: ThinkingLevel | None) -> None:
        """Switch the session's model (the run going on keeps its own until it ends)."""
        await live.connection.set_model(ref.provider, ref.id)
        if level is not None:
            await live.connection.set_thinking_level(level)


def _as_written(model: str | None) -> ModelRef | None:
    try:
        ref = parse_model_ref(model) if model else None
    except PrimeError:
        return None
    return ModelRef(provider=ref.provider, id=ref.model_id) if ref is not None and ref.provider else None


def _model_infos(agent_dir: Path, allowed: tuple[str, ...] | None) -> list[ModelInfo]:
    return model_infos(ModelRegistry.load(agent_dir, allowed))


def _open_transcript(path: Path, tune_process_memory: bool) -> SessionManager:
    """A saved transcript; loaded as the bulk load it is (a long one is a million objects) only when the
    administrator let the extension tune the process's collector (it runs in a thread: process-wide)."""
    if not tune_process_memory:
        return SessionManager.open(path)
    with gc_policy.bulk_load():
        return SessionManager.open(path)


def _mode(name: str) -> PermissionMode | None:
    return next((mode for mode in PERMISSION_MODES if mode == name), None)


def _modes(names: tuple[str, ...] | None) -> tuple[PermissionMode, ...] | None:
    return None if names is None else tuple(mode for mode in PERMISSION_MODES if mode in names)


def _root_commands(agent_dir: Path, root_dir: Path) -> list[CommandInfo]:
    registry = CommandRegistry(BUILTIN_COMMANDS)
    for command in PromptLibrary.load(agent_dir, root_dir).commands():
        registry.register(CommandInfo(command.name, command.description, command.arguments, command.source))
    return registry.commands()
