"""Reading an answer to each kind of question from a line of input."""

from __future__ import annotations

import pytest

from prime_jupyter.magics.questions import ask_on_stdin
from prime_jupyter.protocol.questions import ConfirmAnswer, InputAnswer, Question, QuestionOption, SelectAnswer


def question(kind: str, *, multiple: bool = False) -> Question:
    options = [QuestionOption(id="a", label="alpha"), QuestionOption(id="b", label="beta")]
    return Question.model_validate(
        {"id": "q1", "kind": kind, "title": "Which?", "options": options if kind == "select" else [],
         "multiple": multiple, "timeoutMs": 30_000, "expiresAt": 0}
    )  # fmt: skip


def test_confirm_reads_yes_and_no_and_shows_the_time_limit(capsys: pytest.CaptureFixture[str]) -> None:
    prompts: list[str] = []
    assert ask_on_stdin(question("confirm"), lambda p: prompts.append(p) or "Yes") == ConfirmAnswer(confirmed=True)
    assert ask_on_stdin(question("confirm"), lambda _p: "n") == ConfirmAnswer(confirmed=False)
    assert prompts == ["[y/n] (within 30 s): "] and "Which?" in capsys.readouterr().out


def test_select_takes_numbers_or_labels() -> None:
    assert ask_on_stdin(question("select"), lambda _p: "2") == SelectAnswer(option_ids=["b"])
    assert ask_on_stdin(question("select", multiple=True), lambda _p: "1, beta") == SelectAnswer(option_ids=["a", "b"])


def test_input_returns_the_text_and_an_empty_line_dismisses() -> None:
    assert ask_on_stdin(question("input"), lambda _p: " forty two ") == InputAnswer(text="forty two")
    assert ask_on_stdin(question("input"), lambda _p: "") is None


def test_no_stdin_dismisses() -> None:
    def refuse(_prompt: str) -> str:
        raise NotImplementedError("raw_input was called, but this frontend does not support input requests")

    assert ask_on_stdin(question("confirm"), refuse) is None


def test_words_after_a_single_choice_are_the_answers_text() -> None:
    """An approval's `3 use a smaller sample` rejects with that reason."""
    assert ask_on_stdin(question("select"), lambda _p: "2 not that one") == SelectAnswer(
        option_ids=["b"], text="not that one"
    )
