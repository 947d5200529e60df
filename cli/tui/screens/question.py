"""The question dialog: a session asks its user to confirm, pick or type something.

It dismisses with the answer (`None`: the user declined with Esc). When the question is settled
elsewhere (another surface answered it, it timed out, the run was aborted), the chat closes it with
`close_settled`, and nothing is sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, SelectionList, Static
from textual.widgets.option_list import Option

from prime_jupyter.protocol.questions import ConfirmAnswer, InputAnswer, Question, QuestionAnswer, SelectAnswer

__all__ = ["DialogResult", "QuestionDialog"]


@dataclass(frozen=True, slots=True)
class DialogResult:
    """How the dialog closed: `send` False when the question was settled elsewhere."""

    answer: QuestionAnswer | None
    send: bool = True


class QuestionDialog(ModalScreen[DialogResult]):
    """One pending question; y/n answer a confirm, Enter picks or sends, Esc declines."""

    BINDINGS = [Binding("escape", "decline", "decline")]

    def __init__(self, question: Question) -> None:
        super().__init__(classes="dialog-screen")
        self.question = question

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
            else:
                yield Input(value=question.default or "", placeholder=question.placeholder or "", id="question-input")
            yield Static("Esc declines to answer", classes="hint")

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
        self.dismiss(DialogResult(SelectAnswer(option_ids=[event.option.id or ""])))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(DialogResult(InputAnswer(text=event.value)))

    def action_decline(self) -> None:
        self.dismiss(DialogResult(None))

    def close_settled(self) -> None:
        """The question was answered or cancelled elsewhere: close without sending anything."""
        self.dismiss(DialogResult(None, send=False))
