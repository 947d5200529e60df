"""Test doubles that ship with the package: the scripted LLM server speaking real provider wire formats."""

from prime_jupyter.testing.records import RecordedRequest, Stamp
from prime_jupyter.testing.script import (
    ContextOverflow,
    CutStream,
    HttpError,
    JsonAnswer,
    RejectField,
    Script,
    ScriptedTurn,
    StreamError,
    Text,
    Thinking,
    ToolCall,
    Usage,
)
from prime_jupyter.testing.server_core import ScriptedServerCore
from prime_jupyter.testing.server_thread import ScriptedLLMServer

__all__ = [
    "ContextOverflow",
    "CutStream",
    "HttpError",
    "JsonAnswer",
    "RecordedRequest",
    "RejectField",
    "Script",
    "ScriptedLLMServer",
    "ScriptedServerCore",
    "ScriptedTurn",
    "Stamp",
    "StreamError",
    "Text",
    "Thinking",
    "ToolCall",
    "Usage",
]
