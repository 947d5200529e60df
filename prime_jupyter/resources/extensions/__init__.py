"""Python extensions: modules with `setup(prime)` that hook tool calls, results and prompts, and add tools,
commands and shortcuts (README "Extensions"; the contract is `api.py`)."""

from prime_jupyter.resources.extensions.api import (
    EVENTS,
    BeforePromptEvent,
    Block,
    EventName,
    Prime,
    PromptContext,
    ResultChange,
    SessionStartEvent,
    SessionSwitchEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from prime_jupyter.resources.extensions.host import (
    ExtensionCommand,
    ExtensionDiagnostic,
    ExtensionHost,
    ExtensionShortcut,
    SessionBinding,
    ToolBlock,
)
from prime_jupyter.resources.extensions.loader import ExtensionSource, discover

__all__ = [
    "EVENTS",
    "BeforePromptEvent",
    "Block",
    "EventName",
    "ExtensionCommand",
    "ExtensionDiagnostic",
    "ExtensionHost",
    "ExtensionShortcut",
    "ExtensionSource",
    "Prime",
    "PromptContext",
    "ResultChange",
    "SessionBinding",
    "SessionStartEvent",
    "SessionSwitchEvent",
    "ToolBlock",
    "ToolCallEvent",
    "ToolResultEvent",
    "discover",
]
