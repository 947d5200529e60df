"""What a model-facing tool is, as the loop sees it.

A tool is one file under `prime_jupyter/tools/` exposing `make_<name>_tool(...) -> AgentTool`. Its
`execute` gets validated parameters, an abort signal it must honour, and an `on_update` callback for
streamed partial results (accumulated, not deltas). Raising `ToolError` (or any exception) turns into an
error tool result the model sees; a tool never crashes the loop.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeAlias, TypeVar

from pydantic import BaseModel, JsonValue

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.types import TextContent, ToolSpec
from prime_jupyter.protocol.events import ToolOutput

__all__ = ["AgentTool", "AgentToolResult", "AnyTool", "ToolUpdate", "text_result"]

P = TypeVar("P", bound=BaseModel)


AgentToolResult: TypeAlias = ToolOutput
"""What a tool returns: content for the model, and `details` for front ends (never sent to the model)."""


ToolUpdate: TypeAlias = Callable[[AgentToolResult], None]


@dataclass(frozen=True, slots=True)
class AgentTool(Generic[P]):
    name: str
    label: str
    description: str
    parameters: type[P]
    execute: Callable[[str, P, AbortSignal, ToolUpdate], Awaitable[AgentToolResult]]
    execution_mode: Literal["sequential", "parallel"] = "sequential"

    def spec(self) -> ToolSpec:
        """What the provider is told; built once per tool (a JSON Schema costs about a millisecond)."""
        return _spec(self.name, self.description, self.parameters)


@functools.lru_cache(maxsize=256)
def _spec(name: str, description: str, parameters: type[BaseModel]) -> ToolSpec:
    schema = parameters.model_json_schema()
    schema.pop("title", None)
    return ToolSpec(name=name, description=description, parameters=schema)


AnyTool: TypeAlias = AgentTool[Any]


def text_result(text: str, details: JsonValue = None) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=text)], details=details)
