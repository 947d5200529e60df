"""The slash commands: their names, what they do, and how each one runs on the chat screen.

Commands run in a worker of the chat screen, so a picker can be awaited (`push_screen_wait`). Errors the
connection raises for a command (`PrimeError`, a refused value) become a notice, never a crash.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Literal, cast

from prime_jupyter.errors import ConfigError, PrimeError
from prime_jupyter.protocol.common import ModelRef
from prime_jupyter.protocol.view import TextView

from .screens.help import HelpScreen
from .screens.model_picker import ModelChoice, ModelPicker
from .screens.session_picker import SessionPicker

if TYPE_CHECKING:
    from prime_jupyter.connection.base import AgentConnection

    from .screens.chat import ChatScreen

__all__ = ["COMMANDS", "resolve", "run_command", "take_back"]

COMMANDS: tuple[tuple[str, str], ...] = (
    ("model", "pick a model, or /model provider/id"),
    ("thinking", "set the thinking level, e.g. /thinking high (Shift+Tab cycles)"),
    ("new", "start a new session"),
    ("resume", "open another session"),
    ("name", "name this session: /name NAME"),
    ("compact", "summarise the conversation to free context: /compact [instructions]"),
    ("export", "write the session to a file: /export [html|jsonl|ipynb]"),
    ("session", "this session's id, file, tokens and cost"),
    ("copy", "copy the last answer to the clipboard"),
    ("kernel", "the agent's kernel: its state and id"),
    ("theme", "switch between the dark and light look, or name a Textual theme (kept for next time)"),
    ("help", "commands and keys"),
    ("quit", "leave (an attached session keeps running in its server)"),
)


def resolve(word: str, names: list[str]) -> str | None:
    """The command `word` names: itself, or the only command it is a prefix of."""
    if word in names:
        return word
    matches = [name for name in names if name.startswith(word)]
    return matches[0] if len(matches) == 1 else None


async def run_command(chat: ChatScreen, name: str, arg: str) -> None:
    connection = chat.connection
    if name == "help":
        await chat.app.push_screen_wait(HelpScreen(chat.commands()))
        return
    if name == "quit":
        chat.app.exit()
        return
    if name == "theme":
        await _theme(chat, arg)
        return
    if connection is None:
        chat.notify("Still connecting to the session…", severity="warning")
        return
    try:
        await _run(chat, connection, name, arg)
    except (PrimeError, ValueError) as exc:
        await chat.conversation.add_line(f"/{name}: {exc}", "error")
    chat.refresh_footer()


async def _run(chat: ChatScreen, connection: AgentConnection, name: str, arg: str) -> None:
    if name == "model":
        await _model(chat, connection, arg)
    elif name == "thinking":
        await _thinking(chat, connection, arg)
    elif name == "new":
        await connection.new_session()
    elif name == "resume":
        await _resume(chat, connection)
    elif name == "name":
        if not arg:
            raise ValueError("give the name: /name my analysis")
        await connection.rename_session(arg)
    elif name == "compact":
        await connection.compact(arg or None)  # the session's compaction events say how it went
    elif name == "export":
        fmt = cast(Literal["html", "jsonl", "ipynb"], arg or "html")
        if fmt not in ("html", "jsonl", "ipynb"):
            raise ValueError("the format is html, jsonl or ipynb (a notebook)")
        exported = await connection.export(fmt)
        await chat.conversation.add_line(f"Exported to {exported.path}")
    elif name == "copy":
        text = _last_answer(chat)
        if text is None:
            raise ValueError("there is no answer to copy yet")
        chat.app.copy_to_clipboard(text)
        chat.notify("Copied the last answer.")
    elif name == "kernel":
        await chat.conversation.add_line(await _kernel_text(chat, connection, arg))
    elif name == "session":
        await chat.conversation.add_line(await _session_text(connection))


async def _resume(chat: ChatScreen, connection: AgentConnection) -> None:
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
    if not arg:
        at = levels.index(state.thinking_level) if state.thinking_level in levels else -1
        level = levels[(at + 1) % len(levels)]
    elif arg in levels:
        level = arg
    else:
        raise ValueError(f"this model's levels are {', '.join(levels)}")
    await connection.set_thinking_level(level)


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


async def _kernel_text(chat: ChatScreen, connection: AgentConnection, arg: str) -> str:
    if arg:
        raise ValueError(f"'{arg}' is not available here yet: /kernel shows the kernel's state and id")
    state = await connection.get_state()
    if state.kernel_state is None:
        return "This session has no kernel (the ipython tool is not among its tools)."
    if state.kernel_id is None:
        return f"The kernel is {state.kernel_state}; it has no id yet."
    where = "in the Jupyter server: JupyterLab can open a console on it" if chat.attached else "in this process"
    return f"The kernel is {state.kernel_state}, id {state.kernel_id}, {where}."


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
    return "\n".join(lines)


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
