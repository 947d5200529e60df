"""Plan mode beyond the policy: what the model is told, and the question a plan ends with (issue 24).

In `plan` the policy offers only read-only tools (`permissions.PermissionPolicy.offers`); the model is
also told it is planning (`PLAN_NOTE`, appended to its system prompt at each call). When a run in plan
mode ends with an answer, a person who can answer is asked whether to carry the plan out: a `select`
question whose option ids are the modes to switch to (`accept-edits`, `ask`, `auto`, each only when
the server allows it) or `plan` to keep planning. Choosing a mode switches to it and starts a run that
carries the plan out. The question does not hold the session: the run is over, and a prompt typed
meanwhile withdraws it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from prime_jupyter.ai.types import AssistantMessage
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.questions import QuestionOption, SelectAnswer

if TYPE_CHECKING:
    from prime_jupyter.runtime.agent_session import AgentSession
    from prime_jupyter.runtime.permissions import PermissionMode

__all__ = ["GO_AHEAD", "PLAN_NOTE", "PLAN_QUESTION", "offer_plan_exit", "withdraw"]

log = logging.getLogger(__name__)

PLAN_NOTE = (
    "You are in plan mode: you may only read and look around; nothing that could change anything (files, "
    "notebooks, code, commands) is offered, and such calls are refused. Investigate, then answer with a "
    "concrete plan. When you stop, the user is asked whether to switch modes and carry it out."
)
"""What the model is told while the session plans (appended to the system prompt)."""
PLAN_QUESTION = "Carry out the plan?"
GO_AHEAD = "Go ahead: carry out the plan."
"""The prompt of the run that carries a plan out."""
_CHOICES: tuple[tuple[PermissionMode, str], ...] = (
    ("accept-edits", "Yes, and let file changes go through"),
    ("ask", "Yes, asking before each change and command"),
    ("auto", "Yes, without asking"),
    ("plan", "No, keep planning"),
)


def offer_plan_exit(session: AgentSession, last: AssistantMessage | None) -> asyncio.Task[None] | None:
    """Ask whether to carry out the plan, when a run in plan mode ended with an answer and a person can
    answer; the task that asks (None when nothing is asked)."""
    if session.permission_mode != "plan" or not session.approvals.interactive:
        return None
    if last is None or last.stop_reason != "stop":
        return None
    return asyncio.ensure_future(_ask(session))


def withdraw(offer: asyncio.Task[None] | None) -> None:
    """The user went on otherwise (a prompt): the question goes away, cancelled."""
    if offer is not None and not offer.done():
        offer.cancel()


async def _ask(session: AgentSession) -> None:
    allowed = session.allowed_permission_modes
    offered = [(m, label) for m, label in _CHOICES if m == "plan" or allowed is None or m in allowed]
    options = [QuestionOption(id=m, label=label) for m, label in offered]
    answer = await session.ui.ask("select", PLAN_QUESTION, options=options)
    chosen = answer.option_ids[0] if isinstance(answer, SelectAnswer) and answer.option_ids else "plan"
    mode: PermissionMode = next((m for m, _ in offered if m == chosen), "plan")
    if mode == "plan" or session.is_running:
        return
    try:
        session.set_permission_mode(mode)
        session.start_prompt(GO_AHEAD)
    except PrimeError as exc:
        session.ui.notify(str(exc), "error")
