"""`ExtensionHost`: the extensions of one session host, loaded, dispatched to, and kept from doing harm.

One host serves the sessions of one in-process connection in turn (the terminal app, `-p`, a notebook, or
one session of a server): `session_start` fires for the first, `session_switch` when the connection
replaces it. The host calls handlers in load order and isolates each extension: an exception (or a return
value outside the contract) becomes an `ExtensionDiagnostic` naming the extension's file and line, the
extension is disabled, and the listeners hear of it (the session shows it as a notice on every surface).
The rules of the events (who runs first, what a policy block means) are in `api.py`.
"""

from __future__ import annotations

import functools
import inspect
import logging
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, Protocol

from prime_jupyter.agent.tool import AnyTool
from prime_jupyter.protocol.events import ToolOutput
from prime_jupyter.resources.extensions.api import (
    AnyHandler,
    BeforePromptEvent,
    CommandHandler,
    EventName,
    Level,
    Prime,
    Registrations,
    SessionStartEvent,
    SessionSwitchEvent,
    ShortcutHandler,
    ToolCallEvent,
    ToolResultEvent,
    frozen_arguments,
)
from prime_jupyter.resources.extensions.loader import ExtensionModules, ExtensionSource, discover
from prime_jupyter.resources.extensions.tools import content_of, extension_tool

__all__ = [
    "ExtensionCommand",
    "ExtensionDiagnostic",
    "ExtensionHost",
    "ExtensionShortcut",
    "SessionBinding",
    "ToolBlock",
]

log = logging.getLogger(__name__)


class SessionBinding(Protocol):
    """The session a host serves now: what events name, and where notices and messages go."""

    @property
    def session_id(self) -> str: ...
    @property
    def cwd(self) -> str: ...
    def notify(self, message: str, level: Level = "info") -> None: ...
    def send_user_message(self, text: str) -> None: ...


@dataclass(frozen=True, slots=True)
class ExtensionDiagnostic:
    """An extension that failed: where (`path:line`), when (`phase`: load, setup, an event, a command),
    and what; `policy` for an administrator's policy extension."""

    extension: str
    path: str
    line: int | None
    phase: str
    message: str
    policy: bool = False
    disabled: bool = True

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path

    def __str__(self) -> str:
        kind = "policy extension" if self.policy else "extension"
        if self.policy and self.phase in ("load", "setup"):
            then = "tool calls are refused until it is fixed"
        elif self.disabled:
            then = "it is disabled"
        else:
            then = "it stays on"
        return f"{self.location}: {kind} '{self.extension}' failed in {self.phase}: {self.message}; {then}"


@dataclass(frozen=True, slots=True)
class ExtensionCommand:
    """A slash command an extension registered (the command registry lists it; `ExtensionHost.run_command`
    runs it with the extension's faults isolated)."""

    name: str
    description: str
    arguments: str
    extension: str
    handler: CommandHandler


@dataclass(frozen=True, slots=True)
class ExtensionShortcut:
    key: str
    description: str
    extension: str
    handler: ShortcutHandler


@dataclass(frozen=True, slots=True)
class ToolBlock:
    """A `tool_call` handler stopped a call."""

    reason: str
    extension: str
    policy: bool

    @property
    def text(self) -> str:
        """What the model reads as the call's result."""
        who = "the administrator's policy" if self.policy else f"extension '{self.extension}'"
        return f"This call did not run: {who} blocked it. Reason: {self.reason}"


@dataclass
class _Extension:
    source: ExtensionSource
    registered: Registrations = field(default_factory=Registrations)
    enabled: bool = True
    tools: list[AnyTool] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.source.name

    @property
    def policy(self) -> bool:
        return self.source.policy

    def handlers(self, event: EventName) -> list[AnyHandler]:
        return self.registered.handlers.get(event, []) if self.enabled else []


class _Failed:
    """A handler raised (already reported)."""


_FAILED = _Failed()


class ExtensionHost:
    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._extensions: list[_Extension] = []
        self._diagnostics: list[ExtensionDiagnostic] = []
        self._listeners: list[Callable[[ExtensionDiagnostic], None]] = []
        self._modules = ExtensionModules()
        self._binding: SessionBinding | None = None
        self._refusing: list[ExtensionDiagnostic] = []
        """Policy extensions that could not load: while any is listed, every tool call is refused."""
        self._started = False
        self._users = 0

    @classmethod
    def load(
        cls,
        agent_dir: Path,
        cwd: Path,
        configured: Iterable[str] = (),
        policy: Iterable[str] = (),
        reserved_tools: Iterable[str] = (),
    ) -> ExtensionHost:
        """Find and set up the extensions (`loader.discover`); `reserved_tools` are names an extension's
        tool may not take (the built-in tools). Never raises for an extension's fault."""
        sources, missing = discover(agent_dir, cwd, tuple(configured), tuple(policy))
        return cls.set_up(cwd, sources, missing, reserved_tools)

    @classmethod
    def set_up(
        cls, cwd: Path, sources: Iterable[ExtensionSource], missing: Iterable[str], reserved_tools: Iterable[str]
    ) -> ExtensionHost:
        """A host of the extensions `discover` found (and a diagnostic for each one it did not)."""
        host = cls(cwd)
        for message in missing:
            is_policy = message.startswith("policy")
            host._report(ExtensionDiagnostic("(missing)", "settings", None, "load", message, policy=is_policy))
        reserved = set(reserved_tools)
        for source in sources:
            host._set_up(source, reserved)
        return host

    # --- loading ------------------------------------------------------------------------------

    def _set_up(self, source: ExtensionSource, reserved: set[str]) -> None:
        extension = _Extension(source)
        prime = Prime(source.name, source.path or Path(source.where), notify=self._notify, send_user_message=self._send)
        phase = "load"
        try:
            module = self._modules.load(source)
            phase = "setup"
            setup = getattr(module, "setup", None)
            if not callable(setup):
                raise TypeError("it has no setup(prime) function")
            if inspect.iscoroutinefunction(setup):
                raise TypeError("setup(prime) must be a plain function (register here; do async work in handlers)")
            setup(prime)
        except (Exception, SystemExit) as exc:  # `sys.exit()` in an extension ends the extension, not the host
            self._fail(extension, phase, exc)
            return
        extension.registered = prime.registered
        taken = reserved | {t.name for e in self._extensions for t in e.tools}
        for registration in prime.registered.tools:
            if registration.name in taken:
                message = f"tool name {registration.name!r} is taken (a built-in or another extension's): skipped"
                self._report(self._diagnostic(extension, "register_tool", message, None, disabled=False))
                continue
            taken.add(registration.name)
            extension.tools.append(extension_tool(registration, functools.partial(_why_off, extension)))
        self._extensions.append(extension)

    # --- what a session asks ------------------------------------------------------------------

    def bind(self, session: SessionBinding) -> None:
        """Serve `session` from now on (the latest one a connection made)."""
        self._binding = session

    def attach(self) -> None:
        """A session uses the host (`detach` when it is disposed; the last one closes the host)."""
        self._users += 1

    def detach(self) -> None:
        self._users -= 1
        if self._users <= 0:
            self._modules.close()

    def subscribe(self, listener: Callable[[ExtensionDiagnostic], None]) -> Callable[[], None]:
        """Hear each new diagnostic as it happens."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def diagnostics(self) -> list[ExtensionDiagnostic]:
        return list(self._diagnostics)

    def names(self) -> list[str]:
        """The extensions loaded and still on."""
        return [e.name for e in self._extensions if e.enabled]

    def tools(self) -> list[AnyTool]:
        """Every tool the extensions registered (a disabled extension's are not offered: `offers`)."""
        return [tool for e in self._extensions for tool in e.tools]

    def offers(self, tool_name: str) -> bool:
        """False for a tool of a disabled extension."""
        return not any(not e.enabled and any(t.name == tool_name for t in e.tools) for e in self._extensions)

    def commands(self) -> list[ExtensionCommand]:
        return [
            ExtensionCommand(c.name, c.description, c.arguments, e.name, c.handler)
            for e in self._extensions
            if e.enabled
            for c in e.registered.commands
        ]

    def shortcuts(self) -> list[ExtensionShortcut]:
        return [
            ExtensionShortcut(s.key, s.description, e.name, s.handler)
            for e in self._extensions
            if e.enabled
            for s in e.registered.shortcuts
        ]

    # --- events -------------------------------------------------------------------------------

    async def tool_call(self, tool_call_id: str, tool_name: str, arguments: Mapping[str, object]) -> ToolBlock | None:
        """The first block of the call, if any: policy extensions first; a policy block is final.
        Contract: never raises for an extension's fault."""
        if self._refusing:
            failed = self._refusing[0]
            reason = f"the administrator's policy extension '{failed.extension}' could not load ({failed.message})"
            return ToolBlock(reason + "; tool calls are refused until it is fixed", failed.extension, True)
        event = ToolCallEvent(self._session_id(), self.cwd, tool_call_id, tool_name, frozen_arguments(arguments))
        for extension in list(self._extensions):
            for handler in extension.handlers("tool_call"):
                value = await self._call(extension, "tool_call", handler, event)
                if isinstance(value, _Failed):
                    if extension.policy:
                        return ToolBlock("the administrator's policy check failed on this call", extension.name, True)
                    break
                block = self._block(extension, handler, value)
                if block is not None:
                    return block
        return None

    async def tool_result(
        self,
        tool_call_id: str,
        tool_name: str,
        arguments: Mapping[str, object],
        output: ToolOutput,
        *,
        blocked_by_policy: bool = False,
    ) -> ToolOutput:
        """The result after every `tool_result` handler: the user's first, the policy's last; a result
        the policy blocked is seen by policy extensions only. Contract: never raises."""
        ordered = [e for e in self._extensions if not e.policy] + [e for e in self._extensions if e.policy]
        frozen = frozen_arguments(arguments)
        for extension in ordered:
            if blocked_by_policy and not extension.policy:
                continue
            for handler in extension.handlers("tool_result"):
                event = ToolResultEvent(
                    self._session_id(),
                    self.cwd,
                    tool_call_id,
                    tool_name,
                    frozen,
                    tuple(output.content),
                    output.details,
                    output.is_error,
                )
                value = await self._call(extension, "tool_result", handler, event)
                if isinstance(value, _Failed):
                    if extension.policy:
                        text = "The administrator's policy could not check this result; it is withheld."
                        return ToolOutput(content=content_of(text), is_error=True)
                    break
                output = self._changed(extension, handler, output, value)
        return output

    async def before_prompt(self, prompt: str) -> list[str]:
        """The context each `before_prompt` handler adds, in load order."""
        event = BeforePromptEvent(self._session_id(), self.cwd, prompt)
        added: list[str] = []
        for extension in list(self._extensions):
            for handler in extension.handlers("before_prompt"):
                value = await self._call(extension, "before_prompt", handler, event)
                if isinstance(value, _Failed):
                    break
                if value is None:
                    continue
                context = value.get("context") if isinstance(value, dict) else None
                if not isinstance(context, str):
                    self._contract(extension, "before_prompt", handler, 'return None or {"context": "<text>"}')
                    break
                if context.strip():
                    added.append(context)
        return added

    async def session_start(self) -> None:
        """`session_start`, once per host (later sessions of the host are switches)."""
        if self._started:
            return
        self._started = True
        await self._notify_all("session_start", SessionStartEvent(self._session_id(), self.cwd))

    async def session_switch(self, previous_session_id: str, reason: Literal["new", "resume", "fork", "clone"]) -> None:
        self._started = True
        event = SessionSwitchEvent(self._session_id(), self.cwd, previous_session_id, reason)
        await self._notify_all("session_switch", event)

    async def run_command(self, name: str, args: str) -> bool:
        """Run an extension's `/name`; False when no extension (still on) has it."""
        for extension in self._extensions:
            for command in extension.registered.commands if extension.enabled else []:
                if command.name == name:
                    await self._call(extension, f"command /{name}", command.handler, args)
                    return True
        return False

    async def run_shortcut(self, key: str) -> bool:
        for extension in self._extensions:
            for shortcut in extension.registered.shortcuts if extension.enabled else []:
                if shortcut.key == key:
                    await self._call(extension, f"shortcut {key}", shortcut.handler)
                    return True
        return False

    # --- isolation ------------------------------------------------------------------------------

    async def _notify_all(self, event_name: EventName, event: object) -> None:
        for extension in list(self._extensions):
            for handler in extension.handlers(event_name):
                if isinstance(await self._call(extension, event_name, handler, event), _Failed):
                    break

    async def _call(self, extension: _Extension, phase: str, handler: AnyHandler, *args: object) -> object:
        try:
            value = handler(*args)
            if inspect.isawaitable(value):
                value = await value
            return value
        except (Exception, SystemExit) as exc:
            self._fail(extension, phase, exc)
            return _FAILED

    def _block(self, extension: _Extension, handler: AnyHandler, value: object) -> ToolBlock | None:
        if value is None:
            return None
        if isinstance(value, dict) and value.get("block") is True:
            reason = value.get("reason")
            text = reason if isinstance(reason, str) and reason.strip() else "no reason given"
            return ToolBlock(text, extension.name, extension.policy)
        if isinstance(value, dict) and not value.get("block"):
            return None
        self._contract(extension, "tool_call", handler, 'return None or {"block": True, "reason": "..."}')
        if extension.policy:
            return ToolBlock("the administrator's policy check failed on this call", extension.name, True)
        return None

    def _changed(self, extension: _Extension, handler: AnyHandler, output: ToolOutput, value: object) -> ToolOutput:
        if value is None:
            return output
        if not isinstance(value, dict) or not set(value) <= {"content", "details", "is_error"}:
            self._contract(extension, "tool_result", handler, "return None or a dict of content, details, is_error")
            return output
        try:
            content = content_of(value["content"]) if "content" in value else output.content
            details = frozen_arguments({"d": value["details"]})["d"] if "details" in value else output.details
        except TypeError as exc:
            self._contract(extension, "tool_result", handler, str(exc))
            return output
        is_error = bool(value["is_error"]) if "is_error" in value else output.is_error
        return replace(output, content=list(content), details=details, is_error=is_error)

    def _fail(self, extension: _Extension, phase: str, exc: BaseException) -> None:
        path, line = _location(exc, extension.source)
        message = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        self._disable(extension, ExtensionDiagnostic(extension.name, path, line, phase, message, extension.policy))

    def _contract(self, extension: _Extension, phase: str, handler: AnyHandler, rule: str) -> None:
        code = getattr(handler, "__code__", None)
        path = code.co_filename if code is not None else extension.source.where
        line = code.co_firstlineno if code is not None else None
        message = f"its {phase} handler returned a value outside the contract: {rule}"
        self._disable(extension, ExtensionDiagnostic(extension.name, path, line, phase, message, extension.policy))

    def _disable(self, extension: _Extension, diagnostic: ExtensionDiagnostic) -> None:
        if extension.policy:  # a policy stays on (failing closed); one that never loaded refuses every call
            diagnostic = replace(diagnostic, disabled=diagnostic.phase in ("load", "setup"))
            if diagnostic.disabled:
                self._refusing.append(diagnostic)
        extension.enabled = extension.policy and not diagnostic.disabled
        self._report(diagnostic)

    def _diagnostic(
        self, extension: _Extension, phase: str, message: str, line: int | None, *, disabled: bool
    ) -> ExtensionDiagnostic:
        return ExtensionDiagnostic(
            extension.name, extension.source.where, line, phase, message, extension.policy, disabled
        )

    def _report(self, diagnostic: ExtensionDiagnostic) -> None:
        if diagnostic.policy and diagnostic.phase == "load" and diagnostic not in self._refusing:
            self._refusing.append(diagnostic)
        self._diagnostics.append(diagnostic)
        log.warning("%s", diagnostic)
        for listener in tuple(self._listeners):
            try:
                listener(diagnostic)
            except Exception:
                log.exception("an extension diagnostic listener failed")

    # --- what handlers may do ---------------------------------------------------------------------

    def _session_id(self) -> str:
        return self._binding.session_id if self._binding is not None else ""

    def _notify(self, message: str, level: Level) -> None:
        if self._binding is not None:
            self._binding.notify(message, level)
        else:
            log.info("extension notice (no session yet): %s", message)

    def _send(self, text: str) -> None:
        if self._binding is None:
            raise RuntimeError("no session yet: send messages from a handler, not from setup")
        self._binding.send_user_message(text)


def _why_off(extension: _Extension) -> str | None:
    if extension.enabled:
        return None
    return f"This tool is off: its extension '{extension.name}' failed and was disabled (see its diagnostic)."


def _location(exc: BaseException, source: ExtensionSource) -> tuple[str, int | None]:
    """The extension's file and line where `exc` came from (its innermost frame inside the extension)."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return exc.filename, exc.lineno
    frames = traceback.extract_tb(exc.__traceback__)
    root = source.path.resolve() if source.path is not None else None
    for frame in reversed(frames):
        where = Path(frame.filename).resolve()
        if root is not None and (where == root or root in where.parents):
            return frame.filename, frame.lineno
    ours = Path(__file__).resolve().parents[2]
    for frame in reversed(frames):
        if ours not in Path(frame.filename).resolve().parents:
            return frame.filename, frame.lineno
    return source.where, None
