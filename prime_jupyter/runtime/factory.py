"""`create_agent_session`: resolve model, transcript, tools and system prompt into an `AgentSession`."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from prime_jupyter.ai.models import Model, ThinkingLevel
from prime_jupyter.ai.registry import ModelRegistry, agent_dir, parse_model_ref
from prime_jupyter.errors import SessionNotFoundError
from prime_jupyter.resources.library import PromptLibrary
from prime_jupyter.resources.skills import skills_prompt
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.budget import BudgetLimits, SessionBudget, UsageLedger
from prime_jupyter.runtime.changes import keep_changes
from prime_jupyter.runtime.permissions import PermissionMode, choose_mode
from prime_jupyter.runtime.resources import PromptOptions, build_system_prompt
from prime_jupyter.runtime.secrets import redacting
from prime_jupyter.runtime.settings import Settings, load_settings
from prime_jupyter.runtime.tool_set import (
    ALL_TOOLS,
    DEFAULT_TOOLS,
    AnyTool,
    KernelConfig,
    build_tool_set,
    start_kernel_ahead,
)
from prime_jupyter.sessions.context import SessionContext
from prime_jupyter.sessions.entries import CustomEntry, MessageEntry
from prime_jupyter.sessions.listing import find_session_path, most_recent_path, recorded_cwd
from prime_jupyter.sessions.manager import SessionManager

if TYPE_CHECKING:
    from prime_jupyter.kernel.ops import KernelLauncher
    from prime_jupyter.notebooks.workspace import NotebookWorkspace
    from prime_jupyter.resources.extensions.host import ExtensionHost
    from prime_jupyter.resources.mcp.host import McpHost

__all__ = ["SessionOptions", "create_agent_session", "new_session_model", "sessions_dir"]

log = logging.getLogger(__name__)

SessionMode = Literal["new", "continue", "resume", "none"]


@dataclass
class SessionOptions:
    cwd: Path
    model: str | None = None
    thinking: ThinkingLevel | None = None
    tools: list[str] | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    context_files: bool = True
    mode: SessionMode = "new"
    resume: str | None = None
    agent_dir: Path | None = None
    kernel_launcher: KernelLauncher | None = None
    """Where the `ipython` tool's kernel comes from: the Jupyter server's kernel manager
    (`ServerKernelLauncher`), the notebook's own shell (`InProcessLauncher`); None: the process's shared
    local launcher."""
    interactive: bool = False
    """A person can answer questions (panel, terminal app, notebook): the `ask` tool is offered."""
    manager: SessionManager | None = None
    """A transcript already opened or made (a fork, a seeded session); overrides `mode`."""
    kernel_name: str | None = None
    """The kernel spec of the `ipython` tool (default: settings, then python3)."""
    tool_timeout_s: float | None = None
    """How long one `ipython` call may run before it is interrupted (default: settings, then 600 s)."""
    extra_tools: list[AnyTool] = field(default_factory=list)
    """Tools of the caller's own, offered beside the named ones (the Python API's custom tools)."""
    permission_mode: PermissionMode | None = None
    """The mode asked for (`chat/new`, `--permission-mode`); refused when not allowed. None: the resumed
    transcript's, else settings.json's, else `default_permission_mode`, else `ask` where a person can
    answer (`interactive`) and `auto` where nobody can."""
    default_permission_mode: PermissionMode | None = None
    """The host's default (the server's `PrimeApp.default_permission_mode`)."""
    allowed_permission_modes: tuple[PermissionMode, ...] | None = None
    """The modes the host allows (the server's `PrimeApp.allowed_permission_modes`); None: all."""
    session_budget_usd: float | None = None
    daily_budget_usd: float | None = None
    """The host's cost budgets (the server's `c.PrimeApp.session_budget_usd`, `daily_budget_usd`): below
    settings.json's, they hold (`runtime.budget`)."""
    usage_ledger: UsageLedger | None = None
    """The day's spend of the agent dir, shared by a host's sessions (None: one is made)."""
    allowed_models: tuple[str, ...] | None = None
    """The models the host allows (the server's `PrimeApp.allowed_models`, `provider/id` patterns); None:
    all. A resumed session whose model is no longer allowed goes on with the default one."""
    environment: Callable[[], dict[str, str]] | None = None
    """Makes the environment of the session's `bash` and `!` commands (a server's, without its provider
    keys: `runtime.environment`); None: this process's. Its kernels' come from `kernel_launcher`."""
    notebook: str | None = None
    """Tie the session to this notebook (a path, relative to `cwd`): its `ipython` tool runs in the
    notebook's own kernel. Recorded in the transcript, so a resumed session keeps the tie."""
    notebooks: Callable[[Path, float], NotebookWorkspace] | None = None
    """Makes the notebook tools' workspace from the session's folder and time limit (the server's:
    through its contents manager and the notebooks' Jupyter sessions); None: notebooks on disk."""
    file_root: Path | None = None
    """Where `read`, `write` and `edit` may act (symlinks resolved): a server's root directory, as for every
    route; None: anywhere (the terminal app and notebooks work where the user is). The shell and the
    kernel are not confined, as Jupyter's own terminals are not."""
    policy_extensions: tuple[str, ...] = ()
    """The administrator's policy extensions (`c.PrimeApp.policy_extensions`): files, package folders or
    module names, loaded before the user's; their blocks are final (`resources.extensions.api`)."""
    extensions: ExtensionHost | None = None
    """Extensions already loaded for this folder (the session this one replaces had them): kept, so
    `session_switch` reaches the same extensions; None, or another folder's: loaded for this session."""
    mcp_servers: bool = True
    """Start the MCP servers of `mcp.json` (`resources.mcp`); False: none, whatever it says."""
    mcp: McpHost | None = None
    """MCP servers already running for this folder (the session this one replaces had them): kept;
    None, or another folder's: this session's own, from `mcp.json`."""
    before_continuing: Callable[[str, Path], None] | None = None
    """Called with the id and file of a saved transcript that `continue` or `resume` opened, before anything
    is written to it; raises to refuse (the connection layer's: a Jupyter server has that session open)."""


def sessions_dir(directory: Path | None = None) -> Path:
    return (directory or agent_dir()) / "sessions"


def create_agent_session(options: SessionOptions) -> AgentSession:
    """Build a session; raises `PrimeError`s with actionable messages (no key, unknown model or session)."""
    home = options.agent_dir or agent_dir()
    cwd = options.cwd.resolve()
    settings = load_settings(home, cwd)
    registry = ModelRegistry.load(home, options.allowed_models)
    manager = _open_manager(options, home, cwd)
    context = manager.build_context()
    model, thinking = _choose_model(options, settings, registry, context)
    if context.provider != model.provider or context.model_id != model.id:
        manager.append_model_change(model.provider, model.id)
    if context.thinking_level != thinking:
        manager.append_thinking_level_change(thinking)
    mode = choose_mode(
        options.permission_mode,
        (context.permission_mode, settings.permission_mode, options.default_permission_mode),
        options.allowed_permission_modes,
        interactive=options.interactive,
    )
    if context.permission_mode != mode:
        manager.append_permission_mode_change(mode)
    names = list(options.tools or settings.tools or DEFAULT_TOOLS)
    if options.interactive and "ask" not in names:
        names.append("ask")
    kernel = KernelConfig(
        options.kernel_name or settings.kernel.name,
        options.tool_timeout_s or settings.kernel.timeout_s,
        options.kernel_launcher,
    )
    workdir = _working_dir(manager.cwd, cwd)
    make_notebooks = options.notebooks
    notebooks = (lambda: make_notebooks(workdir, kernel.timeout_s)) if make_notebooks is not None else None
    recorded = _recorded_notebook(manager)
    notebook = options.notebook or recorded
    tools = [n for n in names if n != "ask"]
    root, environment = options.file_root, options.environment
    tool_set = build_tool_set(tools, workdir, model, kernel, notebooks, notebook, root, environment)
    if notebook != recorded:  # only once the path was accepted (inside the root, a notebook's)
        manager.append_custom(NOTEBOOK_ENTRY, {"path": notebook})
    if tool_set.notebooks is not None:
        tool_set.notebooks.provenance = lambda: {
            "session": manager.session_id,
            "entry": manager.leaf_id,
            "model": f"{model.provider}/{model.id}",
        }
    tool_set.tools.extend(options.extra_tools)
    extensions = _extensions(
        options, home, workdir, settings.extensions, [*ALL_TOOLS, *(t.name for t in tool_set.tools)]
    )
    if extensions is not None:
        tool_set.tools.extend(extensions.tools())
    prompts = PromptLibrary.load(home, workdir)
    prompt_options = PromptOptions(
        cwd=workdir,
        agent_dir=home,
        tool_names=tuple(names),
        tool_guidance=tool_set.guidance,
        system_prompt=options.system_prompt,
        append_system_prompt=options.append_system_prompt,
        context_files=options.context_files,
        skills=skills_prompt(prompts.skills),
    )
    prompt = build_system_prompt(prompt_options)
    session = AgentSession(
        manager=manager,
        registry=registry,
        settings=settings,
        model=model,
        thinking_level=thinking,
        tools=[redacting(tool, registry.secrets) for tool in tool_set.tools],
        system_prompt=prompt,
        disposers=tool_set.disposers,
        kernel=tool_set.kernel,
        permission_mode=mode,
        allowed_permission_modes=options.allowed_permission_modes,
        interactive=options.interactive,
        extensions=extensions,
        mcp=_mcp(options, home, workdir, model),
        wrap_tool=lambda tool: redacting(tool, registry.secrets),
    )
    session.environment = options.environment
    session.budget = _budget(options, settings, home, manager)
    session.prompts = prompts

    def reread() -> tuple[PromptLibrary, str]:
        library = PromptLibrary.load(home, workdir)
        return library, build_system_prompt(replace(prompt_options, skills=skills_prompt(library.skills)))

    session.prompt_reloader = reread
    for problem in prompts.diagnostics:
        session.tell_at_first_run(problem)
    if "ask" in names:  # only where a person can answer: a headless run does not import it
        from prime_jupyter.tools.ask import make_ask_tool

        session.tools.append(make_ask_tool(session.ui.ask))
    if tool_set.kernel is not None and tool_set.borrows_kernel:
        tool_set.kernel.prewarm()
    elif tool_set.kernel is not None:
        session.subscribe(start_kernel_ahead(tool_set.kernel))
    keep_changes(session, tools, str(workdir), str(root) if root is not None else None, tool_set.notebooks)
    return session


def new_session_model(
    home: Path | None, cwd: Path, model: str | None, allowed_models: tuple[str, ...] | None = None
) -> tuple[Model, ThinkingLevel]:
    """The model a new session in `cwd` gets: `model` (`provider/id`), else the settings' default, else the
    registry's; and the thinking level it runs at (what a picker must show before the session exists).
    Raises what `create_agent_session` would (`ModelNotFoundError`, a broken `models.json`)."""
    home = home or agent_dir()
    settings = load_settings(home, cwd.resolve())
    registry = ModelRegistry.load(home, allowed_models)
    return _choose_model(SessionOptions(cwd=cwd, model=model), settings, registry, SessionContext())


def _extensions(
    options: SessionOptions, home: Path, workdir: Path, configured: list[str] | None, reserved: list[str]
) -> ExtensionHost | None:
    """The session's extensions: the replaced session's when they are this folder's, else loaded here;
    None when there are none to load."""
    if options.extensions is not None and options.extensions.cwd == workdir:
        return options.extensions
    from prime_jupyter.resources.extensions.loader import discover

    sources, missing = discover(home, workdir, tuple(configured or ()), options.policy_extensions)
    if not sources and not missing:
        return None
    from prime_jupyter.resources.extensions.host import ExtensionHost

    return ExtensionHost.set_up(workdir, sources, missing, reserved)


def _mcp(options: SessionOptions, home: Path, workdir: Path, model: Model) -> McpHost | None:
    """The session's MCP servers (`resources.mcp`), not started yet; None when no mcp.json has any."""
    if not options.mcp_servers:
        return None
    if options.mcp is not None and options.mcp.cwd == workdir:
        return options.mcp
    from prime_jupyter.resources.mcp.config import mcp_config_files

    if not any(path.is_file() for path in mcp_config_files(home, workdir)):
        return None
    from prime_jupyter.resources.mcp.host import McpHost

    return McpHost.load(home, workdir, accepts_images=model.accepts_images)


NOTEBOOK_ENTRY = "prime.notebook"
"""The custom transcript entry that ties a session to a notebook (`{"path": ...}`)."""


def _recorded_notebook(manager: SessionManager) -> str | None:
    """The notebook the transcript ties the session to (its last tie), if any."""
    recorded: str | None = None
    for entry in manager.entries:
        if isinstance(entry, CustomEntry) and entry.custom_type == NOTEBOOK_ENTRY and isinstance(entry.data, dict):
            path = entry.data.get("path")
            recorded = path if isinstance(path, str) and path else None
    return recorded


def _working_dir(recorded: str, here: Path) -> Path:
    """The session's directory. A header records a name that is not UTF-8 with U+FFFD, which names no
    directory: when that stands for this directory, this directory's own path is the one to work in. A
    session whose directory is gone (moved, deleted) works here, with a warning, rather than failing
    every tool call."""
    if recorded != str(here) and recorded == recorded_cwd(here):
        return here
    path = Path(recorded)
    if here != path and not path.is_dir() and here.is_dir():
        log.warning("this session was started in %s, which is gone; working in %s", recorded, here)
        return here
    return path


def _open_manager(options: SessionOptions, home: Path, cwd: Path) -> SessionManager:
    if options.manager is not None:
        return options.manager
    directory = sessions_dir(home)
    if options.mode == "none":
        return SessionManager.in_memory(cwd)
    if options.mode == "resume":
        if not options.resume:
            raise SessionNotFoundError("--resume needs a session id, id prefix or path")
        return _continued(options, find_session_path(directory, options.resume))
    if options.mode == "continue":
        latest = most_recent_path(directory, str(cwd))
        if latest is not None:
            return _continued(options, latest)
    return SessionManager.create(cwd, directory)


def _continued(options: SessionOptions, path: Path) -> SessionManager:
    manager = SessionManager.open(path)
    if options.before_continuing is not None:
        options.before_continuing(manager.session_id, path)
    return manager


def _choose_model(
    options: SessionOptions, settings: Settings, registry: ModelRegistry, context: SessionContext
) -> tuple[Model, ThinkingLevel]:
    thinking: ThinkingLevel | None = options.thinking
    if options.model:
        ref = parse_model_ref(options.model)
        model = registry.resolve(ref.provider, ref.model_id)
        thinking = ref.thinking or thinking
    elif context.provider and context.model_id and registry.permits(context.provider, context.model_id):
        model = registry.resolve(context.provider, context.model_id)
    elif settings.default_model and _permitted(registry, settings.default_model, settings.default_provider):
        ref = parse_model_ref(settings.default_model)
        model = registry.resolve(ref.provider or settings.default_provider or "", ref.model_id)
        thinking = thinking or ref.thinking
    else:  # none chosen, or the one recorded or in settings.json is one the server no longer allows
        model = registry.default_model()
    level = thinking or _level(context.thinking_level) or _level(settings.default_thinking_level)
    return model, level or ("medium" if model.reasoning else "off")


def _budget(options: SessionOptions, settings: Settings, home: Path, manager: SessionManager) -> SessionBudget | None:
    limits = BudgetLimits(settings.budget.session_usd, settings.budget.daily_usd).clamped(
        options.session_budget_usd, options.daily_budget_usd, "c.PrimeApp"
    )
    if limits.session_usd is None and limits.daily_usd is None:
        return None
    history = (entry.message for entry in manager.entries if isinstance(entry, MessageEntry))
    return SessionBudget(limits, options.usage_ledger or UsageLedger(home), manager.session_id, history)


def _permitted(registry: ModelRegistry, ref_text: str, default_provider: str | None) -> bool:
    ref = parse_model_ref(ref_text)
    provider = ref.provider or default_provider
    return not provider or registry.permits(provider, ref.model_id)


def _level(text: str | None) -> ThinkingLevel | None:
    from prime_jupyter.ai.models import THINKING_LEVELS

    for level in THINKING_LEVELS:
        if level == text:
            return level
    return None
