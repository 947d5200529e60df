"""An MCP server's tool as a model-facing `AgentTool` named `mcp__<server>__<tool>`.

The tool's JSON Schema is what the provider is told, and the model's arguments are checked against it
before the interception point sees them, as an extension tool's are (`extensions.tools.schema_arguments`).
A result reaches the model through the kernel's output budget (`kernel.budget.model_content`), as a cell's
outputs do: text blocks capped head and tail, images attached (at most `MAX_IMAGES`, only to a model that
takes images), resources as their text or a line naming them. `isError` is a tool error.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, JsonValue

from prime_jupyter.agent.tool import AgentTool, AgentToolResult, AnyTool, ToolUpdate
from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.types import TextContent
from prime_jupyter.kernel.budget import model_content
from prime_jupyter.kernel.outputs import Output
from prime_jupyter.resources.extensions.tools import schema_arguments

if TYPE_CHECKING:
    from mcp.types import CallToolResult, Tool

    from prime_jupyter.resources.mcp.client import McpServer

__all__ = ["PREFIX", "mcp_tool", "result_output", "tool_name"]

PREFIX = "mcp__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_MAX_NAME = 64


def tool_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>`, in the characters and length providers accept (a long one ends in a hash)."""
    name = f"{PREFIX}{server}__{_UNSAFE.sub('_', tool)}"
    if len(name) <= _MAX_NAME:
        return name
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return f"{name[: _MAX_NAME - 9]}_{digest}"


def mcp_tool(server: McpServer, tool: Tool, *, accepts_images: bool) -> AnyTool:
    """The model-facing tool that calls `tool` on `server`."""
    name = tool_name(server.name, tool.name)
    schema: dict[str, Any] = dict(tool.input_schema or {})
    schema.setdefault("type", "object")
    schema.pop("title", None)
    parameters = schema_arguments(name, schema)
    description = (tool.description or tool.title or tool.name).strip()
    remote = tool.name

    async def execute(call_id: str, args: BaseModel, signal: AbortSignal, on_update: ToolUpdate) -> AgentToolResult:
        result = await server.call(remote, dict(args.model_extra or {}), signal)
        return result_output(result, accepts_images=accepts_images)

    label = f"{tool.title or tool.name} ({server.name})"
    return AgentTool(name, label, f"{description}\n\n(From the MCP server '{server.name}'.)", parameters, execute)


def result_output(result: CallToolResult, *, accepts_images: bool) -> AgentToolResult:
    """A `tools/call` result as the model sees it, through the output budget."""
    outputs: list[Output] = []
    for block in result.content:
        outputs.append(_output(block))
    if not result.content and result.structured_content is not None:
        outputs.append(_text(json.dumps(result.structured_content, ensure_ascii=False)))
    content = model_content(outputs, notices=[], accepts_images=accepts_images)
    if not result.content and result.structured_content is None:
        content = [TextContent(text="(the tool returned nothing)")]
    details: JsonValue = {"mcp": True, "structured": _json(result.structured_content)}
    return AgentToolResult(content=content, details=details, is_error=bool(result.is_error))


def _output(block: object) -> Output:
    kind = getattr(block, "type", None)
    if kind == "text":
        return _text(str(getattr(block, "text", "")))
    if kind == "image":
        mime = str(getattr(block, "mime_type", "image/png"))
        data = str(getattr(block, "data", ""))
        return {"output_type": "display_data", "data": {mime: data, "text/plain": f"[{mime} image]"}, "metadata": {}}
    if kind == "resource":
        resource = getattr(block, "resource", None)
        uri = str(getattr(resource, "uri", ""))
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            return _text(f"[resource {uri}]\n{text}")
        return _text(f"[resource {uri}: {getattr(resource, 'mime_type', None) or 'binary'} data, not shown]")
    if kind == "resource_link":
        return _text(f"[resource link: {getattr(block, 'uri', '')} {getattr(block, 'name', '')}]".rstrip("] ") + "]")
    if kind == "audio":
        return _text(f"[{getattr(block, 'mime_type', 'audio')} audio, not shown]")
    return _text(f"[{kind or type(block).__name__} content, not shown]")


def _text(text: str) -> Output:
    return {"output_type": "stream", "name": "stdout", "text": text if text.endswith("\n") else text + "\n"}


def _json(value: object) -> JsonValue:
    if value is None:
        return None
    parsed: JsonValue = json.loads(json.dumps(value, default=str))
    return parsed
