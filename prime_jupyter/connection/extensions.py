"""The extensions sub-interface, made real: a command registry and a renderer registry (process-local).

`AgentConnection.extensions` is where a front end asks what it can offer beyond the conversation: the
slash commands and their argument completions, and how to draw a tool or a custom message. Commands
come from a `CommandRegistry` (the built-in commands today; prompt templates and skills will register
there too); renderers come from a `RendererRegistry` that the front end itself fills (the terminal app
registers its tool cards, a notebook its displays), so the one that asks is the one that knows what a
renderer returns. Over HTTP every member raises `AgentConnectionUnsupportedError` (`_remote.py`):
these live where the session runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = [
    "BUILTIN_COMMANDS",
    "CommandInfo",
    "CommandRegistry",
    "Completer",
    "LocalExtensions",
    "Renderer",
    "RendererRegistry",
]

Completer = Callable[[str], list[str]]
"""Argument completions of a command for what the user typed after it (the prefix)."""
Renderer = Callable[[object], object]
"""Draws a tool call or a custom message; what it takes and returns is the registering front end's."""


@dataclass(frozen=True, slots=True)
class CommandInfo:
    """One slash command: `name` without the slash, a one-line description, an argument hint."""

    name: str
    description: str
    arguments: str = ""
    source: str = "builtin"


BUILTIN_COMMANDS: tuple[CommandInfo, ...] = (
    CommandInfo("model", "pick a model, or name one", "provider/id"),
    CommandInfo("thinking", "set the thinking level (Shift+Tab cycles)", "off|minimal|low|medium|high|xhigh"),
    CommandInfo(
        "mode",
        "set the permission mode: what asks before it runs (no argument: the next mode)",
        "ask|accept-edits|plan|auto",
    ),
    CommandInfo("new", "start a new session"),
    CommandInfo("resume", "open another session"),
    CommandInfo("fork", "a new session from one of this branch's messages"),
    CommandInfo("clone", "a new session holding a copy of this branch"),
    CommandInfo("tree", "the session tree: switch to any point, label entries"),
    CommandInfo("rewind", "undo the agent's file and notebook changes since a message, and go on from before it"),
    CommandInfo("name", "name this session", "<name>"),
    CommandInfo("compact", "summarise the conversation to free context", "[instructions]"),
    CommandInfo("export", "write the session to a file", "[html|jsonl|ipynb]"),
    CommandInfo("copy", "copy the last answer to the clipboard"),
    CommandInfo("session", "this session's id, file, tokens and cost"),
    CommandInfo("kernel", "the agent's kernel: its state and id; interrupt or restart it", "[interrupt|restart]"),
    CommandInfo("mcp", "the MCP servers: their state and their tools"),
    CommandInfo("reload", "read the prompt templates and skills again (in every live session of a server)"),
    CommandInfo("hotkeys", "every key and what it does"),
    CommandInfo("help", "commands and keys"),
    CommandInfo("quit", "leave (a session in a server keeps running)"),
)
"""The commands a session offers its front ends; their completers are the connection's (`LocalExtensions`).
Only commands a front end implements belong here: the terminal app has a handler for each one
(`tests/cli/tui/test_command_list.py` fails otherwise)."""


class CommandRegistry:
    """Slash commands by name, each with an optional completer; a clash is reported, the first one kept."""

    def __init__(self, commands: Iterable[CommandInfo] = ()) -> None:
        self._commands: dict[str, CommandInfo] = {}
        self._completers: dict[str, Completer] = {}
        self._diagnostics: list[str] = []
        for command in commands:
            self.register(command)

    def register(self, command: CommandInfo, completer: Completer | None = None) -> bool:
        """Add `command`; False (and a diagnostic) when the name is taken or is not a plain word."""
        name = command.name
        if not name or not all(ch.isalnum() or ch in "-_:" for ch in name):
            self._diagnostics.append(f"{command.source}: command name {name!r} is not a word: skipped")
            return False
        if name in self._commands:
            first = self._commands[name].source
            self._diagnostics.append(f"{command.source}: /{name} is already defined by {first}: skipped")
            return False
        self._commands[name] = command
        if completer is not None:
            self._completers[name] = completer
        return True

    def set_completer(self, name: str, completer: Completer) -> None:
        if name not in self._commands:
            raise KeyError(f"no command /{name}")
        self._completers[name] = completer

    def commands(self) -> list[CommandInfo]:
        return sorted(self._commands.values(), key=lambda c: c.name)

    def completions(self, command: str, prefix: str) -> list[str]:
        """The completer's answers that start with `prefix`, in its order; [] for an unknown command."""
        completer = self._completers.get(command.removeprefix("/"))
        if completer is None:
            return []
        return [item for item in completer(prefix) if item.startswith(prefix)]

    def diagnostics(self) -> list[str]:
        return list(self._diagnostics)


class RendererRegistry:
    """Renderers for tool calls (by tool name) and custom messages (by custom type)."""

    def __init__(self) -> None:
        self._tools: dict[str, Renderer] = {}
        self._messages: dict[str, Renderer] = {}

    def register_tool(self, tool_name: str, renderer: Renderer) -> None:
        self._tools[tool_name] = renderer

    def register_message(self, custom_type: str, renderer: Renderer) -> None:
        self._messages[custom_type] = renderer

    def tool(self, tool_name: str) -> Renderer | None:
        return self._tools.get(tool_name)

    def message(self, custom_type: str) -> Renderer | None:
        return self._messages.get(custom_type)


class LocalExtensions:
    """`ConnectionExtensions` of a session in this process: one command and one renderer registry."""

    def __init__(self, commands: CommandRegistry | None = None, renderers: RendererRegistry | None = None) -> None:
        self.commands_registry = commands or CommandRegistry(BUILTIN_COMMANDS)
        self.renderers = renderers or RendererRegistry()
        self._bindings: dict[str, Callable[..., object]] = {}
        self._shortcuts: dict[str, str] = {}

    def commands(self) -> list[CommandInfo]:
        return self.commands_registry.commands()

    def get_argument_completions(self, command: str, prefix: str) -> list[str]:
        return self.commands_registry.completions(command, prefix)

    def get_command_diagnostics(self) -> list[str]:
        return self.commands_registry.diagnostics()

    def get_shortcuts(self) -> dict[str, str]:
        return dict(self._shortcuts)

    def register_shortcut(self, key: str, description: str) -> None:
        self._shortcuts[key] = description

    def get_message_renderer(self, custom_type: str) -> Renderer | None:
        return self.renderers.message(custom_type)

    def get_tool_renderer(self, tool_name: str) -> Renderer | None:
        return self.renderers.tool(tool_name)

    def register_tool_renderer(self, tool_name: str, renderer: Renderer) -> None:
        self.renderers.register_tool(tool_name, renderer)

    def register_message_renderer(self, custom_type: str, renderer: Renderer) -> None:
        self.renderers.register_message(custom_type, renderer)

    def bind_extensions(self, bindings: dict[str, Callable[..., object]]) -> None:
        """Front-end callbacks extensions may call (notify, set the editor's text, ...)."""
        self._bindings.update(bindings)

    def binding(self, name: str) -> Callable[..., object] | None:
        return self._bindings.get(name)
