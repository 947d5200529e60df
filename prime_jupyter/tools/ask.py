"""`ask`: let the model ask its user a question (confirm, pick from options, or type an answer).

Only offered where a person can answer (the panel, the terminal app, notebooks); print mode leaves it
out. The question appears in every attached front end; an unanswered one times out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

from pydantic import BaseModel, Field

from prime_jupyter.agent.tool import AgentTool, AgentToolResult, ToolUpdate, text_result
from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.protocol.questions import CancelReason, ConfirmAnswer, InputAnswer, QuestionAnswer

__all__ = ["USER_NOTES", "AskParams", "make_ask_tool"]

Asker = Callable[..., Awaitable[QuestionAnswer | None]]

DESCRIPTION = """Ask the user a question and wait for the answer. Use it when a decision is theirs to make \
(which of several approaches, whether to overwrite or delete something, a value only they know), not for \
things you can find out yourself. kind "confirm" asks yes/no; "select" offers `options` (set `multiple` to \
allow several); "input" asks for free text. Returns the answer, or says the user did not answer."""


class AskParams(BaseModel):
    question: str = Field(description="The question, short and specific.")
    kind: Literal["confirm", "select", "input"] = Field(default="input", description="How the user answers.")
    options: list[str] = Field(default_factory=list, description="The choices, for kind 'select'.")
    multiple: bool = Field(default=False, description="For 'select': allow several choices.")
    details: str | None = Field(default=None, description="Optional context shown under the question.")


def make_ask_tool(ask: Asker) -> AgentTool[AskParams]:
    async def execute(call_id: str, params: AskParams, signal: AbortSignal, on_update: ToolUpdate) -> AgentToolResult:
        kind = "select" if params.options and params.kind != "confirm" else params.kind
        unanswered: list[CancelReason] = []
        answer = await signal.race(
            ask(
                kind,
                params.question,
                message=params.details,
                options=params.options,
                multiple=params.multiple,
                tool_call_id=call_id,
                on_unanswered=unanswered.append,
            )
        )
        if answer is None:
            reason = unanswered[0] if unanswered else "dismissed"
            return text_result(_unanswered(reason), {"note": USER_NOTES[reason]})
        return text_result(_describe(answer, params.options))

    return AgentTool("ask", "Ask", DESCRIPTION, AskParams, execute, "sequential")


USER_NOTES: dict[CancelReason, str] = {
    "timeout": "Not answered in time: the question timed out, and the agent went on without an answer.",
    "dismissed": "Dismissed: the agent went on without an answer.",
    "abort": "Cancelled: the run was stopped before the question was answered.",
    "shutdown": "Cancelled: the session closed before the question was answered.",
}
"""What front ends show of an unanswered question (the tool result's `details.note`); the text the
model reads tells it what to do instead."""


def _unanswered(reason: CancelReason) -> str:
    why = {"timeout": "the question timed out", "dismissed": "dismissed"}.get(reason, "cancelled")
    return f"The user did not answer ({why}). Decide sensibly or ask again later."


def _describe(answer: QuestionAnswer, options: list[str]) -> str:
    if isinstance(answer, ConfirmAnswer):
        return "The user answered: yes" if answer.confirmed else "The user answered: no"
    if isinstance(answer, InputAnswer):
        return f"The user answered: {answer.text}"
    chosen = [options[int(i)] if i.isdigit() and int(i) < len(options) else i for i in answer.option_ids]
    return "The user chose: " + "; ".join(chosen)
