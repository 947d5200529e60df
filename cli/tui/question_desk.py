"""The chat's questions: one dialog at a time, for the oldest pending question; closed when it is
settled anywhere (answered from another surface, timed out, the run aborted).

A dialog closed here (answered, declined, timed out) is not opened again while the session settles its
question. The answer is sent through the connection in a worker of the chat screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.questions import Question

from .screens.question import DialogResult, QuestionDialog

if TYPE_CHECKING:
    from .screens.chat import ChatScreen

__all__ = ["QuestionDesk"]


class QuestionDesk:
    """The question dialogs of one chat screen."""

    def __init__(self, chat: ChatScreen) -> None:
        self._chat = chat
        self._dialog: QuestionDialog | None = None
        self._closed: set[str] = set()
        """Questions whose dialog closed here (answered, declined, timed out, settled elsewhere)."""

    def sync(self, questions: tuple[Question, ...]) -> None:
        """Close the dialog of a question settled elsewhere; open one for the oldest question waiting."""
        if self._dialog is not None and all(q.id != self._dialog.question.id for q in questions):
            self._dialog.close_settled()
            self._dialog = None
        waiting = [q for q in questions if q.id not in self._closed]
        if self._dialog is None and waiting:
            question = waiting[0]
            self._dialog = QuestionDialog(question)
            self._chat.app.bell()
            self._chat.app.push_screen(self._dialog, lambda result: self._answered(question, result))

    def _answered(self, question: Question, result: DialogResult | None) -> None:
        self._closed.add(question.id)  # not opened again while the session settles it
        if self._dialog is not None and self._dialog.question.id == question.id:
            self._dialog = None
        if result is not None and result.timed_out:
            self._chat.run_worker(self._timed_out(question), group="timeouts")
        if result is not None and result.send and self._chat.connection is not None:
            self._chat.run_worker(self._answer(question.id, result), group="answers")

    async def _timed_out(self, question: Question) -> None:
        waited = round(question.timeout_ms / 1000)
        await self._chat.conversation.add_line(
            f"Nobody answered “{question.title}” within {waited} s, so the agent went on without an answer.",
            "warning",
        )

    async def _answer(self, question_id: str, result: DialogResult) -> None:
        connection = self._chat.connection
        if connection is not None:
            try:
                await connection.answer_question(question_id, result.answer)
            except PrimeError as exc:
                self._chat.notify(f"The answer was not sent: {exc}", severity="error")
