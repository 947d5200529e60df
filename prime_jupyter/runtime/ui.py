"""`SessionUI`: how a session asks its user something and shows notices, whatever the front end.

A question is an event (`QuestionAsked`) plus a future; any front end answers it through
`answer()`. It resolves exactly once: answered, dismissed (`answer(id, None)`), timed out, or cancelled
by an abort or shutdown, and `QuestionResolved` says which. Pending questions are listed so a front end
that attaches later (or a server restoring after a restart) can show them again.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from prime_jupyter.protocol.events import (
    Notify,
    QuestionAsked,
    QuestionResolved,
    SessionEvent,
    StatusChanged,
    WidgetChanged,
)
from prime_jupyter.protocol.questions import CancelReason, Question, QuestionAnswer, QuestionKind, QuestionOption

__all__ = ["SessionUI"]


@dataclass
class _Pending:
    question: Question
    future: asyncio.Future[QuestionAnswer | None]
    timer: asyncio.TimerHandle | None
    on_unanswered: Callable[[CancelReason], None] | None = None


class SessionUI:
    def __init__(self, emit: Callable[[SessionEvent], None], default_timeout_s: float = 0.0) -> None:
        self._emit = emit
        self.default_timeout_s = default_timeout_s
        self._pending: dict[str, _Pending] = {}

    def pending(self) -> list[Question]:
        return [p.question for p in self._pending.values()]

    async def ask(
        self,
        kind: QuestionKind,
        title: str,
        *,
        message: str | None = None,
        options: Sequence[str | QuestionOption] | None = None,
        multiple: bool = False,
        placeholder: str | None = None,
        default: str | None = None,
        timeout_s: float | None = None,
        tool_call_id: str | None = None,
        on_unanswered: Callable[[CancelReason], None] | None = None,
    ) -> QuestionAnswer | None:
        """Ask and wait; None when dismissed, timed out or cancelled (`on_unanswered` hears which).

        `options` given as labels get their index as id; given as `QuestionOption`s they keep their own
        (approvals: `allow_once`, ...). A `timeout_s` of 0 waits until answered."""
        timeout = self.default_timeout_s if timeout_s is None else timeout_s
        now_ms = int(time.time() * 1000)
        question = Question(
            id=f"q-{uuid.uuid4().hex[:12]}",
            kind=kind,
            title=title,
            message=message,
            options=[_option(i, option) for i, option in enumerate(options or [])],
            multiple=multiple,
            placeholder=placeholder,
            default=default,
            timeout_ms=int(timeout * 1000),
            expires_at=now_ms + int(timeout * 1000),
            tool_call_id=tool_call_id,
        )
        loop = asyncio.get_running_loop()
        future: asyncio.Future[QuestionAnswer | None] = loop.create_future()
        timer = loop.call_later(timeout, self.cancel, question.id, "timeout") if timeout > 0 else None
        self._pending[question.id] = _Pending(question, future, timer, on_unanswered)
        self._emit(QuestionAsked(question))
        try:
            return await future
        finally:
            if question.id in self._pending:  # the asker was cancelled: nobody waits any more
                self.cancel(question.id, "abort")

    def answer(self, question_id: str, answer: QuestionAnswer | None) -> bool:
        """Resolve a pending question; False when it is no longer pending. None dismisses it."""
        pending = self._pending.pop(question_id, None)
        if pending is None:
            return False
        if answer is not None and answer.kind != pending.question.kind:
            self._pending[question_id] = pending
            raise ValueError(f"question {question_id} is a {pending.question.kind} question, not {answer.kind}")
        if answer is None and pending.on_unanswered is not None:
            pending.on_unanswered("dismissed")
        self._settle(pending, answer)
        self._emit(QuestionResolved(question_id, answer, None if answer is not None else "dismissed"))
        return True

    def cancel(self, question_id: str, reason: CancelReason) -> bool:
        pending = self._pending.pop(question_id, None)
        if pending is None:
            return False
        if pending.on_unanswered is not None:
            pending.on_unanswered(reason)
        self._settle(pending, None)
        self._emit(QuestionResolved(question_id, None, reason))
        return True

    def cancel_all(self, reason: CancelReason) -> None:
        for question_id in list(self._pending):
            self.cancel(question_id, reason)

    def notify(self, message: str, level: str = "info") -> None:
        lvl = level if level in ("info", "warning", "error") else "info"
        self._emit(Notify(message, lvl))  # type: ignore[arg-type]

    def set_status(self, key: str, text: str | None) -> None:
        self._emit(StatusChanged(key, text))

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        self._emit(WidgetChanged(key, lines))

    @staticmethod
    def _settle(pending: _Pending, answer: QuestionAnswer | None) -> None:
        if pending.timer is not None:
            pending.timer.cancel()
        if not pending.future.done():
            pending.future.set_result(answer)


def _option(index: int, option: str | QuestionOption) -> QuestionOption:
    return option if isinstance(option, QuestionOption) else QuestionOption(id=str(index), label=option)
