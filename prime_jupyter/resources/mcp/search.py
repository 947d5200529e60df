"""`mcp_search`: when the MCP servers offer many tools, the model finds the ones it needs first.

Past `TOOL_THRESHOLD` MCP tools, requests carry only this tool and the MCP tools found so far (as Claude
Code and pi do); the model describes what it needs, gets the matching tools' names, descriptions and
parameters, and from its next request on those tools are offered and can be called.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from pydantic import BaseModel, Field

from prime_jupyter.agent.tool import AgentTool, AgentToolResult, AnyTool, ToolUpdate, text_result
from prime_jupyter.ai.abort import AbortSignal

__all__ = ["SEARCH_TOOL", "TOOL_THRESHOLD", "make_search_tool", "rank"]

SEARCH_TOOL = "mcp_search"
TOOL_THRESHOLD = 40
"""More MCP tools than this and they are found through `mcp_search` instead of sent with every request."""
_WORD = re.compile(r"[a-z0-9]+")


class SearchParams(BaseModel):
    query: str = Field(description="Words for what you need (e.g. 'create github issue'), or exact tool names.")
    limit: int = Field(default=8, ge=1, le=25, description="At most this many tools.")


def rank(query: str, tools: list[AnyTool], limit: int) -> list[AnyTool]:
    """The tools that match `query` best: an exact name first, then by how many of its words a tool's
    name and description hold (its name counting double); ties keep the servers' order."""
    words = set(_WORD.findall(query.lower()))
    named = {part.strip() for part in re.split(r"[\s,]+", query) if part.strip()}
    scored: list[tuple[int, int, AnyTool]] = []
    for index, tool in enumerate(tools):
        if tool.name in named:
            scored.append((1000, index, tool))
            continue
        name_words = set(_WORD.findall(tool.name.lower()))
        text_words = set(_WORD.findall(tool.description.lower()))
        score = 2 * len(words & name_words) + len(words & text_words)
        if score:
            scored.append((score, index, tool))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [tool for _, _, tool in scored[:limit]]


def make_search_tool(candidates: Callable[[], list[AnyTool]], found: Callable[[list[AnyTool]], None]) -> AnyTool:
    """The search over `candidates()` (the MCP tools not sent with every request); `found` hears what it
    returned, so those tools join the next request."""

    async def execute(call_id: str, args: SearchParams, signal: AbortSignal, on_update: ToolUpdate) -> AgentToolResult:
        tools = candidates()
        matches = rank(args.query, tools, args.limit)
        if not matches:
            return text_result(f"No MCP tool matches {args.query!r} ({len(tools)} tools). Try other words.")
        found(matches)
        listed = [{"name": t.name, "description": t.description, "parameters": t.spec().parameters} for t in matches]
        intro = f"{len(matches)} of {len(tools)} MCP tools match; you can call them from your next step:\n"
        return text_result(intro + json.dumps(listed, ensure_ascii=False, indent=1))

    description = (
        "Find tools of the connected MCP servers. They are too many to list in every request, so they are "
        "not among your tools until you find them: call this first with words for what you need; the "
        "matching tools come back with their parameters and you can call them from your next step."
    )
    return AgentTool(SEARCH_TOOL, "MCP tool search", description, SearchParams, execute)
