"""The extension API: what `setup(prime)` receives, the events its handlers get and what they may return.

An extension is a Python module (`name.py`) or package (`name/__init__.py`) with a function
`setup(prime: Prime) -> None`. Setup only registers; it runs once per session host (the terminal app, or
each session of a server) and must not be async. Handlers may be plain functions or coroutine functions;
a plain one runs on the session's event loop, so it must be quick (do I/O in an `async def`).

- `tool_call`, with a `ToolCallEvent` (before the permission mode is asked): return
  `{"block": True, "reason": "..."}` and the call does not run; the model reads the reason as its result.
- `tool_result`, with a `ToolResultEvent` (after the tool ran, or its refusal): return any of
  `{"content": ..., "details": ..., "is_error": ...}` and the model sees that result instead.
- `before_prompt`, with a `BeforePromptEvent` (a prompt is about to run): return `{"context": "..."}` and
  the model gets that text just before the prompt (kept in the transcript, not displayed).
- `session_start` (`SessionStartEvent`) and `session_switch` (`SessionSwitchEvent`: a new, resumed,
  forked or cloned session in the same host): return nothing.

Events are frozen; `arguments` is a read-only copy (a hook blocks or lets through, it never rewrites a call,
so what an administrator's policy checked is what runs). Handlers run in order of loading: the
administrator's policy extensions first, then the user's (`~/.prime/agent/extensions/`, then the project's
`.prime/agent/extensions/`, then settings.json `extensions`). A policy block is final: later handlers do not
run, and only policy extensions see (and may change) its result. Policy `tool_result` handlers run last, so
theirs is the final word on every result.

An exception in `setup` or in a handler is reported with the extension's file and line and disables that
extension (its handlers, tools, commands and shortcuts) for the host; the session goes on. A policy
extension fails closed instead: while it cannot load, every tool call is refused; a handler of it that
raises blocks that call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Literal, TypeAlias, TypedDict, get_args, overload

from pydantic import BaseModel, JsonValue

from prime_jupyter.ai.types import ImageContent, TextContent

__all__ = [
    "EVENTS",
    "BeforePromptEvent",
    "Block",
    "CommandHandler",
    "EventName",
    "Prime",
    "PromptContext",
    "Registrations",
    "ResultChange",
    "SessionStartEvent",
    "SessionSwitchEvent",
    "ShortcutHandler",
    "ToolCallEvent",
    "ToolExecute",
    "ToolResultEvent",
    "ToolReturn",
]

EventName: TypeAlias = Literal["tool_call", "tool_result", "before_prompt", "session_start", "session_switch"]
EVENTS: tuple[EventName, ...] = get_args(EventName)
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
Level: TypeAlias = Literal["info", "warning", "error"]
Content: TypeAlias = TextContent | ImageContent


@dataclass(frozen=True, slots=True)
class ToolCallEvent:
    """The model called a tool; its arguments are valid for the tool's schema."""

    session_id: str
    cwd: Path
    tool_call_id: str
    tool_name: str
    arguments: Mapping[str, JsonValue]
    type: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True, slots=True)
class ToolResultEvent:
    """A call's result, as the model will see it unless a handler changes it (the previous handler's
    change included)."""

    session_id: str
    cwd: Path
    tool_call_id: str
    tool_name: str
    arguments: Mapping[str, JsonValue]
    content: tuple[Content, ...]
    details: JsonValue
    is_error: bool
    type: Literal["tool_result"] = "tool_result"

    @property
    def text(self) -> str:
        """The result's text blocks, joined."""
        return "".join(block.text for block in self.content if isinstance(block, TextContent))


@dataclass(frozen=True, slots=True)
class BeforePromptEvent:
    """A prompt (the user's text) is about to run."""

    session_id: str
    cwd: Path
    prompt: str
    type: Literal["before_prompt"] = "before_prompt"


@dataclass(frozen=True, slots=True)
class SessionStartEvent:
    """The host's first session is live."""

    session_id: str
    cwd: Path
    type: Literal["session_start"] = "session_start"


@dataclass(frozen=True, slots=True)
class SessionSwitchEvent:
    """The host moved to another session (`/new`, `/resume`, `/fork`, `/clone`)."""

    session_id: str
    cwd: Path
    previous_session_id: str
    reason: Literal["new", "resume", "fork", "clone"]
    type: Literal["session_switch"] = "session_switch"


class Block(TypedDict):
    """What a `tool_call` handler returns to stop the call."""

    block: Literal[True]
    reason: str


class ResultChange(TypedDict, total=False):
    """What a `tool_result` handler returns to change the result (keys left out stay as they were);
    `content` may be a string (one text block)."""

    content: str | list[Content]
    details: JsonValue
    is_error: bool


class PromptContext(TypedDict):
    """What a `before_prompt` handler returns to give the model context before the prompt."""

    context: str


ToolCallHandler: TypeAlias = Callable[[ToolCallEvent], "Block | Awaitable[Block | None] | None"]
ToolResultHandler: TypeAlias = Callable[[ToolResultEvent], "ResultChange | Awaitable[ResultChange | None] | None"]
BeforePromptHandler: TypeAlias = Callable[[BeforePromptEvent], "PromptContext | Awaitable[PromptContext | None] | None"]
SessionStartHandler: TypeAlias = Callable[[SessionStartEvent], "Awaitable[None] | None"]
SessionSwitchHandler: TypeAlias = Callable[[SessionSwitchEvent], "Awaitable[None] | None"]
AnyHandler: TypeAlias = Callable[..., object]

ToolReturn: TypeAlias = "str | ResultChange | JsonValue"
"""What a registered tool's `execute` returns: text, a `ResultChange`-shaped dict, or any JSON value
(sent as JSON text). Raising is a failed call the model sees."""
ToolExecute: TypeAlias = Callable[..., object]
"""`execute(arguments)`: a dict of the validated arguments (the model instance when `parameters` is a
pydantic model); plain functions run in a worker thread, coroutine functions on the loop."""
CommandHandler: TypeAlias = Callable[[str], "Awaitable[None] | None"]
"""`handler(args)`: what the user typed after the command."""
ShortcutHandler: TypeAlias = Callable[[], "Awaitable[None] | None"]


@dataclass(frozen=True, slots=True)
class ToolRegistration:
    name: str
    description: str
    parameters: Mapping[str, object] | type[BaseModel]
    execute: ToolExecute
    label: str


@dataclass(frozen=True, slots=True)
class CommandRegistration:
    name: str
    description: str
    handler: CommandHandler
    arguments: str


@dataclass(frozen=True, slots=True)
class ShortcutRegistration:
    key: str
    description: str
    handler: ShortcutHandler


@dataclass
class Registrations:
    """What one extension's setup registered (the host takes it only if setup succeeded)."""

    handlers: dict[EventName, list[AnyHandler]] = field(default_factory=dict)
    tools: list[ToolRegistration] = field(default_factory=list)
    commands: list[CommandRegistration] = field(default_factory=list)
    shortcuts: list[ShortcutRegistration] = field(default_factory=list)


class Prime:
    """What `setup(prime)` gets: registration, and (from handlers) notices and messages to the session.

    Registration checks its arguments and raises `ValueError`/`TypeError` at once, so a mistake is
    reported at the line of the extension that made it."""

    def __init__(
        self,
        name: str,
        path: Path,
        *,
        notify: Callable[[str, Level], None],
        send_user_message: Callable[[str], None],
    ) -> None:
        self.name = name
        """The extension's name (its file or folder name)."""
        self.path = path
        self.registered = Registrations()
        self._notify = notify
        self._send = send_user_message

    @overload
    def on(self, event: Literal["tool_call"], handler: ToolCallHandler) -> None: ...
    @overload
    def on(self, event: Literal["tool_result"], handler: ToolResultHandler) -> None: ...
    @overload
    def on(self, event: Literal["before_prompt"], handler: BeforePromptHandler) -> None: ...
    @overload
    def on(self, event: Literal["session_start"], handler: SessionStartHandler) -> None: ...
    @overload
    def on(self, event: Literal["session_switch"], handler: SessionSwitchHandler) -> None: ...
    def on(self, event: EventName, handler: AnyHandler) -> None:
        """Call `handler` on `event` (see the module's table)."""
        if event not in EVENTS:
            raise ValueError(f"unknown event {event!r}: choose from {', '.join(EVENTS)}")
        if not callable(handler):
            raise TypeError(f"the handler of {event!r} must be callable, not {type(handler).__name__}")
        self.registered.handlers.setdefault(event, []).append(handler)

    def register_tool(
        self,
        name: str,
        description: str,
        parameters: Mapping[str, object] | type[BaseModel],
        execute: ToolExecute,
        *,
        label: str | None = None,
    ) -> None:
        """A tool the model can call. `parameters` is a JSON Schema of an object (or a pydantic model);
        the model's arguments are validated against it before any hook or the tool sees them. The tool
        goes through the permission mode as code that runs (it asks in `ask` mode)."""
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            raise ValueError(f"tool name {name!r} must be 1-64 letters, digits, '_' or '-'")
        if not callable(execute):
            raise TypeError(f"execute of tool {name!r} must be callable")
        if not isinstance(parameters, Mapping) and not (
            isinstance(parameters, type) and issubclass(parameters, BaseModel)
        ):
            raise TypeError(f"parameters of tool {name!r} must be a JSON Schema (a dict) or a pydantic model")
        if isinstance(parameters, Mapping):
            _check_schema(name, parameters)
        self.registered.tools.append(ToolRegistration(name, description, parameters, execute, label or name))

    def register_command(self, name: str, description: str, handler: CommandHandler, *, arguments: str = "") -> None:
        """A slash command `/<name> args`; `arguments` is the hint shown beside it."""
        if not callable(handler):
            raise TypeError(f"the handler of /{name} must be callable")
        self.registered.commands.append(CommandRegistration(name.removeprefix("/"), description, handler, arguments))

    def register_shortcut(self, key: str, description: str, handler: ShortcutHandler) -> None:
        """A key (`ctrl+shift+g`) the terminal app binds to `handler`."""
        if not callable(handler):
            raise TypeError(f"the handler of shortcut {key!r} must be callable")
        self.registered.shortcuts.append(ShortcutRegistration(key, description, handler))

    def notify(self, message: str, level: Level = "info") -> None:
        """Show the user a notice in every surface of the current session."""
        self._notify(message, level)

    def send_user_message(self, text: str) -> None:
        """Send `text` as the user's message: it runs now, or as a follow-up when a run is going."""
        self._send(text)


def _check_schema(name: str, schema: Mapping[str, object]) -> None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    if schema.get("type") != "object":
        raise ValueError(f'parameters of tool {name!r} must be a JSON Schema with "type": "object"')
    try:
        Draft202012Validator.check_schema(dict(schema))
        json.dumps(schema)
    except SchemaError as exc:
        raise ValueError(f"parameters of tool {name!r} are not a valid JSON Schema: {exc.message}") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"parameters of tool {name!r} must be JSON: {exc}") from None


def frozen_arguments(arguments: Mapping[str, object]) -> Mapping[str, JsonValue]:
    """A read-only deep copy of a call's arguments (handlers cannot change what runs)."""
    copied = json.loads(json.dumps(arguments, default=str))
    return MappingProxyType(copied)
