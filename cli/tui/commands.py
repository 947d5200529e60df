"""The slash commands: which there are, and how each one runs on the chat screen.

The commands are the session's (`extensions.BUILTIN_COMMANDS`; in process the connection's command
registry, with its descriptions) and the app's own (`APP_COMMANDS`). Each has a handler here
(`SESSION_HANDLERS` need the connection, `APP_HANDLERS` do not); `tests/cli/tui/test_command_list.py`
fails when a command is advertised without a handler, or handled without being advertised.

Commands run in a worker of the chat screen, so a picker can be awaited (`push_screen_wait`). Errors the
connection raises for a command (`PrimeError`, a refused value) become a notice, never a crash.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, cast

from prime_jupyter.connection.extensions import BUILTIN_COMMANDS, CommandInfo
from prime_jupyter.connection.types import AgentConnectionUnsupportedError
from prime_jupyter.errors import ConfigError, PrimeError
from prime_jupyter.protocol.common import ModelRef
from prime_jupyter.protocol.snapshot import BudgetStatus
from prime_jupyter.protocol.view import TextView

from . import navigation
from .keys import KeySection, key_sections
from .screens.help import HelpScreen
from .screens.hotkeys import HotkeysScreen
from .screens.model_picker import ModelChoice, ModelPicker
from .screens.session_picker import SessionPicker

if TYPE_CHECKING:
    from prime_jupyter.connection.base import AgentConnection

    from .screens.chat import ChatScreen

__all__ = ["APP_COMMANDS", "APP_HANDLERS", "SESSION_HANDLERS", "command_list", "resolve", "run_command", "take_back"]

APP_COMMANDS: tuple[CommandInfo, ...] = (
    CommandInfo(
        "theme",
        "switch between the dark and light look, or name a Textual theme (kept for next time)",
        "[dark|light]",
        "app",
    ),
)
"""The terminal app's own commands, besides the session's."""

SessionHandler = Callable[["ChatScreen", "AgentConnection", str], Awaitable[None]]
AppHandler = Callable[["ChatScreen", str], Awaitable[None]]


def command_list(connection: AgentConnection | None) -> list[CommandInfo]:
    """What the menu and `/help` offer: the connection's commands that have a handler here (in process,
    its registry; over HTTP, where the registry does not reach, the built-in ones), then the app's."""
    commands: list[CommandInfo] = list(BUILTIN_COMMANDS)
    if connection is not None:
        try:
            commands = connection.extensions.commands()
        except AgentConnectionUnsupportedError:
            pass
    handled = [c for c in commands if c.name in SESSION_HANDLERS or c.name in APP_HANDLERS]
    prompts = [c for c in commands if c.source in PROMPT_SOURCES]  # sent as prompts: the session expands them
    return [*handled, *APP_COMMANDS, *prompts]


PROMPT_SOURCES = ("template", "skill", "extension")
"""Commands the app sends as typed: the session expands templates and skills (`resources.library`) and
runs extensions' commands."""


def resolve(word: str, names: list[str]) -> str | None:
    """The command `word` names: itself, or the only command it is a prefix of."""
    if word in names:
        return word
    matches = [name for name in names if name.startswith(word)]
    return matches[0] if len(matches) == 1 else None


async def run_command(chat: ChatScreen, name: str, arg: str) -> None:
    app_handler = APP_HANDLERS.get(name)
    if app_handler is not None:
        await app_handler(chat, arg)
        return
    handler = SESSION_HANDLERS[name]
    connection = chat.connection
    if connection is None:
        chat.notify("Still connecting to the session…", severity="warning")
        return
    try:
        await handler(chat, connection, arg)
    except (PrimeError, ValueError) as exc:
        await chat.conversation.add_line(f"/{name}: {exc}", "error")
    chat.refresh_footer()


# --- the app's own --------------------------------------------------------------------------------


def key_help(chat: ChatScreen) -> list[KeySection]:
    """Every key, from the bindings of the classes that run them."""
    from .screens.fork_picker import ForkPicker
    from .screens.question import QuestionDialog
    from .screens.tree import TreeScreen
    from .widgets.editor import PromptEditor
    from .widgets.tool_card import ToolCard

    return key_sections(
        [
            ("Anywhere", type(chat.app)),
            ("Chat", type(chat)),
            ("Editor", PromptEditor),
            ("Tool card (focused)", ToolCard),
            ("Session tree (/tree)", TreeScreen),
            ("Session picker (/resume)", SessionPicker),
            ("Model and fork pickers (/model, /fork)", ForkPicker),
            ("Question dialog", QuestionDialog),
        ]
    )


async def _help(chat: ChatScreen, arg: str) -> None:
    await chat.app.push_screen_wait(HelpScreen(chat.commands(), key_help(chat)))


async def _hotkeys(chat: ChatScreen, arg: str) -> None:
    await chat.app.push_screen_wait(HotkeysScreen(key_help(chat)))


async def _quit(chat: ChatScreen, arg: str) -> None:
    chat.app.exit()


async def _theme(chat: ChatScreen, arg: str) -> None:
    """Switch the theme, and keep it in the settings for the next launch."""
    app = chat.app
    named = {"dark": "textual-dark", "light": "textual-light"}.get(arg, arg)
    if not named:
        named = "textual-light" if app.current_theme.dark else "textual-dark"
    if named not in app.available_themes:
        chat.notify(f"No theme '{arg}': try dark, light or one of {', '.join(sorted(app.available_themes))}")
        return
    app.theme = named
    from prime_jupyter.connection.preferences import write_preference

    settings: Path | None = getattr(app, "settings_file", None)
    if settings is not None:
        try:
            await asyncio.to_thread(write_preference, settings, "theme", named)
        except (ConfigError, OSError) as exc:
            chat.notify(f"The theme is not kept for next time: {exc}", severity="warning")


APP_HANDLERS: dict[str, AppHandler] = {"help": _help, "hotkeys": _hotkeys, "quit": _quit, "theme": _theme}


# --- the session's --------------------------------------------------------------------------------


async def _new(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    await connection.new_session()


async def _name(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    if not arg:
        raise ValueError("give the name: /name my analysis")
    await connection.rename_session(arg)


async def _compact(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    await connection.compact(arg or None)  # the session's compaction events say how it went


async def _export(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    fmt = cast(Literal["html", "jsonl", "ipynb"], arg or "html")
    if fmt not in ("html", "jsonl", "ipynb"):
        raise ValueError("the format is html, jsonl or ipynb (a notebook)")
    exported = await connection.export(fmt)
    await chat.conversation.add_line(f"Exported to {exported.path}")


async def _copy(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    text = _last_answer(chat)
    if text is None:
        raise ValueError("there is no answer to copy yet")
    chat.app.copy_to_clipboard(text)
    chat.notify("Copied the last answer.")


async def _kernel(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    if arg == "interrupt":
        await connection.interrupt_kernel()
        await chat.conversation.add_line("Interrupted the kernel: the running code gets a KeyboardInterrupt.")
    elif arg == "restart":
        await chat.conversation.add_line("Restarting the kernel…")
        await connection.restart_kernel()
        await chat.conversation.add_line("The kernel was restarted: its variables are gone.")
    elif arg:
        raise ValueError(f"'{arg}' is not a kernel action: /kernel, /kernel interrupt or /kernel restart")
    await chat.kernel_changed()
    if not arg:
        await chat.conversation.add_line(await _kernel_text(chat, connection))


async def _session(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    await chat.conversation.add_line(await _session_text(connection))


async def _tree(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    await navigation.open_tree(chat, connection)


async def _fork(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    await navigation.fork(chat, connection)


async def _rewind(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    await navigation.rewind(chat, connection)


async def _clone(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    await navigation.clone(chat, connection)


async def _resume(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    """The picker, until a session is opened or it is closed (a rename or a delete opens it again)."""
    while True:
        sessions = (await connection.list_sessions("all")).sessions
        state = await connection.get_state()
        choice = await chat.app.push_screen_wait(SessionPicker(sessions, state.session_id))
        if choice is None:
            return
        if choice.action == "open":
            if choice.session_id != state.session_id:
                await connection.switch_session(choice.session_id)
            return
        if choice.action == "rename" and choice.name:
            await connection.rename_session(choice.name, choice.session_id)
        elif choice.action == "delete":
            await connection.delete_session(choice.session_id)


async def _model(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    models = await connection.get_available_models()
    if arg and "/" in arg:
        provider, _, model_id = arg.partition("/")
        await connection.set_model(provider, model_id)
        return
    choices: list[ModelChoice] = [(ModelRef(provider=m.provider, id=m.id), m.name, m.available) for m in models.models]
    picked = await chat.app.push_screen_wait(ModelPicker(choices, models.current, arg))
    if picked is not None:
        await connection.set_model(picked.provider, picked.id)


async def _thinking(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    state = await connection.get_state()
    levels = state.available_thinking_levels or ["off"]
    level = _pick(levels, state.thinking_level, arg, f"this model's levels are {', '.join(levels)}")
    await connection.set_thinking_level(level)


def _pick(choices: list[str], current: str | None, arg: str, refusal: str) -> str:
    """`arg` when it is one of `choices`; without `arg`, the choice after `current` (round again at the end)."""
    if not arg:
        at = choices.index(current) if current in choices else -1
        return choices[(at + 1) % len(choices)]
    if arg in choices:
        return arg
    raise ValueError(refusal)


MODE_HELP = {
    "ask": "code, commands and file changes ask first",
    "accept-edits": "file changes go through, code and commands ask first",
    "plan": "only read-only tools: the agent plans",
    "auto": "nothing asks",
}
"""What each permission mode means, as `/mode` says it."""


async def _mode(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    state = await connection.get_state()
    modes = state.allowed_permission_modes or list(MODE_HELP)
    if state.permission_mode is None:
        raise ValueError("this server has no permission modes (it is older than this terminal app)")
    mode = _pick(modes, state.permission_mode, arg, f"the permission modes here are {', '.join(modes)}")
    await connection.set_permission_mode(mode)
    await chat.conversation.add_line(f"Permission mode: {mode} ({MODE_HELP.get(mode, mode)}).")


async def _kernel_text(chat: ChatScreen, connection: AgentConnection) -> str:
    state = await connection.get_state()
    if state.kernel_state is None:
        return "This session has no kernel (the ipython tool is not among its tools)."
    if state.kernel_state == "stopped":
        return "No kernel yet: it starts when the agent first runs code (the ipython tool)."
    if state.kernel_id is None:
        return f"The kernel is {state.kernel_state}; it has no id yet."
    console = f"`jupyter console --existing kernel-{state.kernel_id}.json`"
    if not chat.attached:  # a kernel of this process's own manager: its connection file is in Jupyter's runtime dir
        return f"The kernel is {state.kernel_state}, id {state.kernel_id}, started here; {console} opens a console."
    return (
        f"The kernel is {state.kernel_state}, id {state.kernel_id}, in the Jupyter server. Open a console on it:"
        f" {console} on the server's machine, or a JupyterLab console connected to this kernel (its kernel"
        " picker lists the server's running kernels)."
    )


async def _session_text(connection: AgentConnection) -> str:
    state = await connection.get_state()
    lines = [f"Session {state.session_id}", f"File: {state.session_file or '(not saved)'}", f"Directory: {state.cwd}"]
    if state.session_name:
        lines.insert(1, f"Name: {state.session_name}")
    lines.append(f"Messages: {state.message_count}")
    if state.usage is not None:
        usage = state.usage
        lines.append(
            f"Tokens: {usage.input:,} in, {usage.output:,} out, {usage.cache_read:,} cache read; "
            f"cost ${usage.cost.total:.4f}"
        )
    if state.budget is not None:
        lines.append(budget_line(state.budget))
    return "\n".join(lines)


def budget_line(budget: BudgetStatus) -> str:
    """`Budget: $1.20 of $5.00 this session; $3.40 of $20.00 today`, the parts that have a limit."""
    parts = []
    if budget.session_limit_usd is not None:
        parts.append(f"${budget.session_spent_usd:.2f} of ${budget.session_limit_usd:.2f} this session")
    if budget.day_limit_usd is not None:
        parts.append(f"${budget.day_spent_usd or 0:.2f} of ${budget.day_limit_usd:.2f} today")
    return "Budget: " + "; ".join(parts)


async def _mcp(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    """The session answers `/mcp` itself (with a notice), wherever it runs."""
    await connection.prompt("/mcp")


async def _reload(chat: ChatScreen, connection: AgentConnection, arg: str) -> None:
    """The session answers `/reload` itself (with notices), wherever it runs."""
    await connection.prompt("/reload")


SESSION_HANDLERS: dict[str, SessionHandler] = {
    "model": _model,
    "thinking": _thinking,
    "mode": _mode,
    "new": _new,
    "resume": _resume,
    "fork": _fork,
    "clone": _clone,
    "tree": _tree,
    "rewind": _rewind,
    "name": _name,
    "compact": _compact,
    "export": _export,
    "copy": _copy,
    "session": _session,
    "kernel": _kernel,
    "mcp": _mcp,
    "reload": _reload,
}


def _last_answer(chat: ChatScreen) -> str | None:
    """The text of the newest assistant message of the view state."""
    state = chat.feed.state
    for message in reversed(state.messages if state is not None else ()):
        if message.role == "assistant":
            texts = [part.text for part in message.parts if isinstance(part, TextView)]
            if texts:
                return "\n\n".join(texts)
    return None


async def take_back(connection: AgentConnection) -> str | None:
    """Take the last queued message out of the queue (the others stay, in order) and return it."""
    queued = await connection.clear_queue()
    steering, follow_up = list(queued.steering), list(queued.follow_up)
    last = follow_up.pop() if follow_up else steering.pop() if steering else None
    for text in steering:
        await connection.steer(text)
    for text in follow_up:
        await connection.follow_up(text)
    return last
