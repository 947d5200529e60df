"""An extension's `register_tool` as a model-facing `AgentTool`.

The JSON Schema an extension gives is what the provider is told, and the model's arguments are checked
against it (jsonschema) before any hook or the tool sees them, as pydantic checks the built-in tools'.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, JsonValue, model_validator

from prime_jupyter.agent.tool import AgentTool, AgentToolResult, AnyTool, ToolUpdate
from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.types import ImageContent, TextContent
from prime_jupyter.resources.extensions.api import ToolRegistration

__all__ = ["extension_tool", "result_of", "schema_arguments"]


class _SchemaArguments(BaseModel):
    """Arguments checked against a JSON Schema; kept as given (`model_extra`)."""

    model_config = ConfigDict(extra="allow")
    schema_: ClassVar[dict[str, Any]] = {}

    @model_validator(mode="before")
    @classmethod
    def _valid(cls, data: object) -> object:
        from jsonschema import Draft202012Validator

        errors = sorted(Draft202012Validator(cls.schema_).iter_errors(data), key=lambda e: list(e.path))
        if errors:
            raise ValueError("; ".join(_describe(list(e.path), e.message) for e in errors))
        return data

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        copied: dict[str, Any] = json.loads(json.dumps(cls.schema_))
        return copied


def schema_arguments(name: str, schema: Mapping[str, object]) -> type[BaseModel]:
    """A model of arguments checked against the JSON Schema `schema`, which is also what the provider is told
    (an extension's tool, an MCP server's); the arguments are kept as given (`model_extra`)."""
    return type(f"{name}_arguments", (_SchemaArguments,), {"schema_": json.loads(json.dumps(schema))})


def _describe(path: list[object], message: str) -> str:
    where = ".".join(str(p) for p in path)
    return f"{where}: {message}" if where else message


def extension_tool(registration: ToolRegistration, available: Callable[[], str | None]) -> AnyTool:
    """The tool; `available()` says why it cannot run now (its extension was disabled), else None."""
    parameters = registration.parameters
    model = schema_arguments(registration.name, parameters) if isinstance(parameters, Mapping) else parameters
    execute = registration.execute

    async def run(call_id: str, args: BaseModel, signal: AbortSignal, on_update: ToolUpdate) -> AgentToolResult:
        why = available()
        if why is not None:
            return AgentToolResult(content=[TextContent(text=why)], is_error=True)
        value: object = dict(args.model_extra or {}) if isinstance(args, _SchemaArguments) else args
        if inspect.iscoroutinefunction(execute):
            returned = await execute(value)
        else:
            returned = await asyncio.to_thread(execute, value)
            if inspect.isawaitable(returned):
                returned = await returned
        return result_of(returned)

    return AgentTool(registration.name, registration.label, registration.description, model, run)


def result_of(value: object) -> AgentToolResult:
    """What a registered tool returned, as a result: text, a `ResultChange`-shaped dict, or JSON."""
    if isinstance(value, AgentToolResult):
        return value
    if isinstance(value, str):
        return AgentToolResult(content=[TextContent(text=value)])
    if isinstance(value, dict) and "content" in value and set(value) <= {"content", "details", "is_error"}:
        return AgentToolResult(
            content=content_of(value["content"]),
            details=_json(value.get("details")),
            is_error=bool(value.get("is_error", False)),
        )
    try:
        return AgentToolResult(content=[TextContent(text=json.dumps(value, ensure_ascii=False))])
    except (TypeError, ValueError):
        return AgentToolResult(content=[TextContent(text=repr(value))])


def content_of(value: object) -> list[TextContent | ImageContent]:
    """A `content` value (a string, or a list of text and image blocks) as content blocks."""
    if isinstance(value, str):
        return [TextContent(text=value)]
    if isinstance(value, list | tuple) and all(isinstance(b, TextContent | ImageContent) for b in value):
        return list(value)
    raise TypeError("content must be a string or a list of TextContent / ImageContent blocks")


def _json(value: object) -> JsonValue:
    return json.loads(json.dumps(value, default=str)) if value is not None else None
