"""Permission modes: which tool calls run, which ask their user first, which are refused (design.md D14).

A pure policy, no I/O: `PermissionPolicy.decide` looks at a call's tool name (and, for `bash`, its
command) and the session's mode, and says `allow`, `ask` or `deny`. The runtime's interception point
(`runtime.approvals`) acts on the answer; every surface sees the same questions because the policy
lives here and not in a front end.

Tools are classified by name, so a tool added later (the notebook tools) falls into place without
touching this module's callers:

| kind | tools | ask | accept-edits | plan | auto |
|---|---|---|---|---|---|
| read-only | `read`, `notebook_read`, `ask`, `mcp_search` | allow | allow | allow | allow |
| change | `write`, `edit`, `notebook_edit` | ask | allow | deny | allow |
| execution | `ipython`, `notebook_run`, `bash`, MCP tools, any other | ask | ask | deny | allow |

A tool this module does not know counts as execution: a custom function tool runs arbitrary code, so
it asks rather than slipping through.

"Allow always" rules last for the session: a rule names a tool (every later call of it runs), or, for
`bash`, a command prefix (`git status` allows `git status -s` but not `git push`). A prefix rule never
matches a command that chains or redirects (`;`, `&&`, `|`, `>`, backticks, `$(`...): `git status && rm
-rf ~` starts with an allowed prefix and must still ask.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, get_args

from prime_jupyter.errors import PermissionModeError

__all__ = [
    "PERMISSION_MODES",
    "AllowRule",
    "Decision",
    "PermissionMode",
    "PermissionPolicy",
    "ToolKind",
    "check_mode",
    "choose_mode",
    "command_prefix",
    "parse_permission_mode",
    "tool_kind",
]

PermissionMode: TypeAlias = Literal["ask", "accept-edits", "plan", "auto"]
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
ToolKind: TypeAlias = Literal["read-only", "change", "execution"]
Decision: TypeAlias = Literal["allow", "ask", "deny"]

_READ_ONLY = frozenset({"read", "notebook_read", "ask", "mcp_search"})
_CHANGES = frozenset({"write", "edit", "notebook_edit"})
_SHELL = "bash"
_RUNS_ANYTHING = frozenset(
    {"sh", "bash", "zsh", "dash", "python", "python3", "node", "perl", "ruby", "env", "sudo", "xargs", "eval", "exec"}
)
"""Programs whose arguments are a program of their own: a prefix of them is the whole command."""
_CHAINING = re.compile(r"[;&|<>`\n\r]|\$\(")
"""What makes a command more than one command (or a redirection): a prefix rule then does not apply."""


def tool_kind(name: str) -> ToolKind:
    if name in _READ_ONLY:
        return "read-only"
    if name in _CHANGES:
        return "change"
    return "execution"


def parse_permission_mode(value: str, field_name: str = "permissionMode") -> PermissionMode:
    """`value` as a mode; a `ValueError` naming the modes when it is none (a 400 over HTTP)."""
    for mode in PERMISSION_MODES:
        if mode == value:
            return mode
    raise ValueError(f"{field_name} must be one of {', '.join(PERMISSION_MODES)}, not {value!r}")


def check_mode(mode: PermissionMode, allowed: tuple[PermissionMode, ...] | None) -> PermissionMode:
    """`mode` when `allowed` (None: every mode) lets it; else `PermissionModeError` naming both."""
    if allowed is not None and mode not in allowed:
        raise PermissionModeError(
            f"permission mode {mode!r} is not allowed on this server: choose from {', '.join(allowed) or '(none)'}"
        )
    return mode


def choose_mode(
    asked: PermissionMode | None,
    fallbacks: tuple[str | None, ...],
    allowed: tuple[PermissionMode, ...] | None,
    *,
    interactive: bool,
) -> PermissionMode:
    """A new or resumed session's mode: `asked` (refused when not allowed), else the first of `fallbacks`
    (the transcript's, settings.json's, the host's default) that is a mode and allowed, else `ask` where a
    person can answer and `auto` where nobody can (`jupyter prime -p`), else the first allowed mode."""
    if asked is not None:
        return check_mode(asked, allowed)
    natural: PermissionMode = "ask" if interactive else "auto"
    for candidate in (*fallbacks, natural):
        mode = next((m for m in PERMISSION_MODES if m == candidate), None)
        if mode is not None and (allowed is None or mode in allowed):
            return mode
    return allowed[0] if allowed else natural


def command_prefix(command: str) -> str | None:
    """The prefix an "allow always" of `command` allows: its program, and its subcommand when it has one
    (`git status -s` -> `git status`, `ls -la` -> `ls`). None for a command a prefix cannot stand for
    (a chain, a redirection, an unparsable quote, nothing). For an interpreter (`python`, `sh`, `sudo`...)
    it is the whole command: `python` alone would allow any program."""
    words = _words(command)
    if not words:
        return None
    if words[0].rsplit("/", 1)[-1] in _RUNS_ANYTHING:
        return shlex.join(words)
    if len(words) > 1 and not words[1].startswith("-") and "/" not in words[1] and "." not in words[1]:
        return shlex.join(words[:2])
    return shlex.join(words[:1])


def _words(command: str) -> list[str] | None:
    if _CHAINING.search(command):
        return None
    try:
        return shlex.split(command)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class AllowRule:
    """Calls of `tool` run without asking; for `bash` with `prefix`, only commands that start with it."""

    tool: str
    prefix: str | None = None

    def matches(self, name: str, arguments: Mapping[str, object]) -> bool:
        if name != self.tool:
            return False
        if self.prefix is None:
            return True
        command = arguments.get("command")
        words = _words(command) if isinstance(command, str) else None
        wanted = shlex.split(self.prefix)
        return words is not None and words[: len(wanted)] == wanted

    def describe(self) -> str:
        return f"bash commands starting with `{self.prefix}`" if self.prefix is not None else f"every {self.tool} call"


@dataclass
class PermissionPolicy:
    """A session's mode and its "allow always" rules."""

    mode: PermissionMode = "auto"
    rules: list[AllowRule] = field(default_factory=list)

    def offers(self, name: str) -> bool:
        """Whether a tool is offered to the model at all (plan mode offers only read-only tools)."""
        return self.mode != "plan" or tool_kind(name) == "read-only"

    def decide(self, name: str, arguments: Mapping[str, object]) -> Decision:
        kind = tool_kind(name)
        if kind == "read-only" or self.mode == "auto":
            return "allow"
        if self.mode == "plan":
            return "deny"
        if kind == "change" and self.mode == "accept-edits":
            return "allow"
        if any(rule.matches(name, arguments) for rule in self.rules):
            return "allow"
        return "ask"

    def rule_for(self, name: str, arguments: Mapping[str, object]) -> AllowRule | None:
        """The rule an "allow always" of this call adds; None for a shell command no prefix can stand for
        (then "allow always" allows this once)."""
        if name != _SHELL:
            return AllowRule(name)
        command = arguments.get("command")
        prefix = command_prefix(command) if isinstance(command, str) else None
        return AllowRule(name, prefix) if prefix is not None else None

    def allow_always(self, rule: AllowRule) -> None:
        if rule not in self.rules:
            self.rules.append(rule)
