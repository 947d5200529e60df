"""Running one assistant message's tool calls: validation, parallel groups, updates, errors as results.

A `ToolGate` is the one interception point (design.md D18): it sees each call after its arguments are
valid and before the tool runs, and may let it run (None) or replace it with a result of its own (a
refusal the model reads); it then sees every such call's result (run or refused) and may replace it. The
runtime's gate (`runtime.policy`) runs the extensions' hooks and the session's permission mode there; the
loop knows nothing of either.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from pydantic import ValidationError

from prime_jupyter.agent.tool import AnyTool
from prime_jupyter.ai.abort import AbortedError, AbortSignal
from prime_jupyter.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from prime_jupyter.protocol.events import (
    SessionEvent,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolOutput,
)

__all__ = ["ToolGate", "run_tool_calls"]

Emit = Callable[[SessionEvent], None]


class ToolGate(Protocol):
    """Decides whether a validated call runs, and has the last word on its result."""

    async def before(self, call: ToolCall, signal: AbortSignal) -> ToolOutput | None:
        """None runs the call; a `ToolOutput` is its result instead."""
        ...

    async def after(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
        """The result the model sees (`output`, or a replacement). Contract: must not raise."""
        ...


async def run_tool_calls(
    assistant: AssistantMessage,
    tools: list[AnyTool],
    emit: Emit,
    signal: AbortSignal,
    gate: ToolGate | None = None,
) -> list[ToolResultMessage]:
    """Run every call; consecutive parallel-safe calls run together, the rest one by one. Results keep
    the calls' order. Once aborted, remaining calls get an 'aborted' error result without running."""
    by_name = {tool.name: tool for tool in tools}
    calls = assistant.tool_calls()
    results: list[ToolResultMessage] = []
    index = 0
    while index < len(calls):
        group = [calls[index]]
        if _parallel(by_name.get(calls[index].name)):
            while index + len(group) < len(calls) and _parallel(by_name.get(calls[index + len(group)].name)):
                group.append(calls[index + len(group)])
        index += len(group)
        if len(group) == 1:  # the common case: run it now, not as a task started at the next loop pass
            results.append(await _run_one(group[0], by_name, emit, signal, gate))
        else:
            results.extend(await asyncio.gather(*(_run_one(call, by_name, emit, signal, gate) for call in group)))
    return results


def _parallel(tool: AnyTool | None) -> bool:
    return tool is not None and tool.execution_mode == "parallel"


async def _run_one(
    call: ToolCall, by_name: dict[str, AnyTool], emit: Emit, signal: AbortSignal, gate: ToolGate | None
) -> ToolResultMessage:
    emit(ToolExecutionStart(call.id, call.name, call.arguments))
    output, is_error = await _execute(call, by_name.get(call.name), emit, signal, gate)
    emit(ToolExecutionEnd(call.id, call.name, output, is_error))
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=output.content,
        details=output.details,
        is_error=is_error,
    )


async def _execute(
    call: ToolCall, tool: AnyTool | None, emit: Emit, signal: AbortSignal, gate: ToolGate | None
) -> tuple[ToolOutput, bool]:
    if tool is None:
        return _error(f"Tool '{call.name}' does not exist. Available tools: use only the tools you were given."), True
    if signal.aborted:
        return _error("Aborted by the user before this tool call ran."), True
    try:
        params = tool.parameters.model_validate(call.arguments)
    except ValidationError as exc:
        return _error(f"Invalid arguments for {call.name}: {_describe(exc)}"), True
    if gate is None:
        output = await _run_tool(call, tool, params, emit, signal)
        return output, output.is_error
    try:
        refused = await gate.before(call, signal)
    except AbortedError:
        return _error("Aborted by the user before this tool call ran."), True
    if refused is None and signal.aborted:
        return _error("Aborted by the user before this tool call ran."), True
    output = refused if refused is not None else await _run_tool(call, tool, params, emit, signal)
    output = await gate.after(call, output)
    return output, output.is_error


async def _run_tool(call: ToolCall, tool: AnyTool, params: object, emit: Emit, signal: AbortSignal) -> ToolOutput:
    def on_update(partial: ToolOutput) -> None:
        emit(ToolExecutionUpdate(call.id, call.name, call.arguments, partial))

    try:
        return await tool.execute(call.id, params, signal, on_update)
    except AbortedError:
        return _error("Aborted by the user.")
    except Exception as exc:
        return _error(str(exc) or type(exc).__name__)


def _error(text: str) -> ToolOutput:
    return ToolOutput(content=[TextContent(text=text)], is_error=True)


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)
