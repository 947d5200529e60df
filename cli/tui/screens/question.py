"""The question dialog: a session asks its user to confirm, pick or type something.

It dismisses with the answer (`None`: the user declined with Esc). When the question is settled
elsewhere (another surface answered it, it timed out, the run was aborted), the chat closes it with
`close_settled`, and nothing is sent. It shows the time left to answer, counting down each second, and
closes itself when the time is up (`timed_out`: the chat tells the user the agent went on without them).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Input, Label, OptionList, SelectionList, Static
from textual.widgets.option_list import Option

from prime_jupyter.protocol.questions import ConfirmAnswer, InputAnswer, Question, QuestionAnswer, SelectAnswer

from ..widgets.key_order import OrderedInput

__all__ = ["DialogResult", "QuestionDialog", "time_left"]

_REJECT = "reject_once"
"""The option id of an approval's rejection (the runtime's `approvals.REJECT_ONCE`)."""
_REASON_HINT = "why not? (optional, Enter rejects; the agent reads it)"


@dataclass(frozen=True, slots=True)
class DialogResult:
    """How the dialog closed: `send` False when the question was settled elsewhere."""

    answer: QuestionAnswer | None
    send: bool = True
    timed_out: bool = False
    """Nobody answered before the question expired."""


def time_left(seconds: float) -> str:
    """`42 s left`, and in minutes past two (`5 min left`): the dialog's countdown. Minutes are rounded to
    the nearest (121 s is "2 min left", not 3; a ten-minute question starts at "10 min left")."""
    if seconds > 120:
        return f"{math.floor(seconds / 60 + 0.5)} min left"
    return f"{max(0, math.ceil(seconds))} s left"


class QuestionDialog(ModalScreen[DialogResult]):
    """One pending question; y/n answer a confirm, Enter picks or sends, Esc declines."""

    BINDINGS = [Binding("escape", "decline", "decline")]

    def __init__(self, question: Question) -> None:
        super().__init__(classes="dialog-screen")
        self.question = question
        self._finished = False
        self._timer: Timer | None = None

    def seconds_left(self) -> float:
        return self.question.expires_at / 1000 - time.time()

    def compose(self) -> ComposeResult:
        question = self.question
        with Vertical(id="dialog", classes="dialog"):
            yield Label(question.title, id="question-title", markup=False)
            if question.message:
                yield Static(question.message, id="question-message", markup=False)
            if question.kind == "confirm":
                with Horizontal(id="question-buttons"):
                    yield Button("Yes (y)", id="yes", variant="primary")
                    yield Button("No (n)", id="no")
            elif question.kind == "select" and question.multiple:
                yield SelectionList[str](*[(o.label, o.id) for o in question.options], id="question-choices")
                yield Static("Space toggles, Enter sends", classes="hint")
            elif question.kind == "select":
                yield OptionList(*[Option(o.label, id=o.id) for o in question.options], id="question-options")
                if any(o.id == _REJECT for o in question.options):  # an approval: a rejection may say why
                    yield OrderedInput(placeholder=_REASON_HINT, id="question-reason")
            else:
                default, placeholder = question.default or "", question.placeholder or ""
                yield OrderedInput(value=default, placeholder=placeholder, id="question-input")
            with Horizontal(id="question-footer"):
                yield Static("Esc declines to answer", classes="hint")
                yield Static(self._countdown(), id="question-time", classes="hint")

    def on_mount(self) -> None:
        if self.question.timeout_ms > 0:
            self._timer = self.set_interval(1.0, self._tick)

    def _countdown(self) -> str:
        return time_left(self.seconds_left()) if self.question.timeout_ms > 0 else ""

    def _tick(self) -> None:
        if self.seconds_left() <= 0:
            self._close(DialogResult(None, send=False, timed_out=True))
        else:
            self.query_one("#question-time", Static).update(self._countdown())

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", None)
        if self.question.kind == "confirm" and key in ("y", "n"):
            self.dismiss(DialogResult(ConfirmAnswer(confirmed=key == "y")))
        elif self.question.kind == "select" and self.question.multiple and key == "enter":
            chosen = self.query_one(SelectionList).selected
            self.dismiss(DialogResult(SelectAnswer(option_ids=[str(v) for v in chosen])))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(DialogResult(ConfirmAnswer(confirmed=event.button.id == "yes")))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == _REJECT:
            self.dismiss(DialogResult(self._rejection()))
        else:
            self.dismiss(DialogResult(SelectAnswer(option_ids=[event.option.id or ""])))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "question-reason":  # Enter in the reason rejects with it
            self.dismiss(DialogResult(self._rejection()))
        else:
            self.dismiss(DialogResult(InputAnswer(text=event.value)))

    def _rejection(self) -> SelectAnswer:
        reasons = self.query("#question-reason")
        words = reasons.first(Input).value.strip() if reasons else ""
        return SelectAnswer(option_ids=[_REJECT], text=words or None)

    def action_decline(self) -> None:
        self.dismiss(DialogResult(None))

    def close_settled(self) -> None:
        """The question was answered or cancelled elsewhere (or its time ran out there): close without
        sending anything."""
        self._close(DialogResult(None, send=False, timed_out=self.seconds_left() <= 0))

    def dismiss(self, result: DialogResult | None = None) -> AwaitComplete:
        self._finished = True
        if self._timer is not None:
            self._timer.stop()
        return super().dismiss(result)

    def _close(self, result: DialogResult) -> None:
        if not self._finished:
            self.dismiss(result)
