"""Keeping API keys out of what tools return.

A tool runs with the user's environment, so `env`, `echo $OPENAI_API_KEY` or `print(os.environ)` in
the kernel prints the very keys the agent talks to its providers with. Whatever a tool returns is
written to the transcript, streamed to every front end and sent to the model, so each key the model
registry knows (`ModelRegistry.secrets`) is replaced in a tool's output, partial updates included, by
`[redacted: <where the key comes from>]`. The processes themselves keep their environment: a user's
code that needs a key still has it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from pydantic import JsonValue

from prime_jupyter.agent.tool import AgentToolResult, AnyTool, ToolUpdate
from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.types import TextContent

__all__ = ["Redactor", "redacting"]


class Redactor:
    """Replaces each secret value in text, longest first (a key that contains another stays whole)."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        ordered = sorted(secrets.items(), key=lambda item: len(item[1]), reverse=True)
        self._pairs = [(value, f"[redacted: {where}]") for where, value in ordered if value]

    def text(self, text: str) -> str:
        for value, mark in self._pairs:
            if value in text:
                text = text.replace(value, mark)
        return text

    def output(self, result: AgentToolResult) -> AgentToolResult:
        if not self._pairs:
            return result
        content = [
            block.model_copy(update={"text": self.text(block.text)}) if isinstance(block, TextContent) else block
            for block in result.content
        ]
        return replace(result, content=content, details=self._json(result.details))

    def _json(self, value: JsonValue) -> JsonValue:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self._json(item) for item in value]
        if isinstance(value, dict):
            return {key: self._json(item) for key, item in value.items()}
        return value


def redacting(tool: AnyTool, secrets: Callable[[], Mapping[str, str]]) -> AnyTool:
    """`tool` with the secrets of the moment (asked once per call) taken out of its updates and result."""
    execute = tool.execute

    async def run(call_id: str, params: object, signal: AbortSignal, on_update: ToolUpdate) -> AgentToolResult:
        redactor = Redactor(secrets())
        result = await execute(call_id, params, signal, lambda partial: on_update(redactor.output(partial)))
        return redactor.output(result)

    return replace(tool, execute=run)
