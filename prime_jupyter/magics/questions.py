"""Questions the agent asks (`ask`: confirm, select, input), answered in the notebook like `input()` is.

The question is read on the shell's thread through the kernel's stdin channel, so no widget library is
needed; its time limit is shown in the prompt. A front end that offers no stdin (`allow_stdin` false)
or an empty reply dismisses it.
"""

from __future__ import annotations

from collections.abc import Callable

from prime_jupyter.protocol.questions import ConfirmAnswer, InputAnswer, Question, QuestionAnswer, SelectAnswer

__all__ = ["ask_on_stdin"]

_YES, _NO = {"y", "yes", "true", "1"}, {"n", "no", "false", "0"}


def ask_on_stdin(question: Question, read: Callable[[str], str] = input) -> QuestionAnswer | None:
    """Ask `question` with `read` (the builtin `input`: the kernel's stdin); None when not answered."""
    limit = f" (within {round(question.timeout_ms / 1000)} s)" if question.timeout_ms > 0 else ""
    lines = [question.title, *([question.message] if question.message else [])]
    if question.kind == "select":
        lines += [f"  {n}. {option.label}" for n, option in enumerate(question.options, 1)]
    hint = {"confirm": " [y/n]", "select": " number(s)" if question.multiple else " number [words]", "input": ""}
    print("\n".join(lines))
    try:
        reply = read(f"{hint[question.kind].strip() or 'answer'}{limit}: ").strip()
    except (EOFError, NotImplementedError, RuntimeError):  # no stdin here (StdinNotImplementedError)
        return None
    if not reply:
        return None
    if question.kind == "confirm":
        word = reply.lower()
        return ConfirmAnswer(confirmed=word in _YES) if word in _YES | _NO else None
    if question.kind == "select":
        return _selection(question, reply)
    return InputAnswer(text=reply)


def _selection(question: Question, reply: str) -> SelectAnswer | None:
    """The choices a reply names; with one choice allowed, words after it are the answer's `text` (an
    approval's `3 use a smaller sample` rejects with that reason, which the model reads)."""
    if question.multiple:
        words, rest = reply.replace(",", " ").split(), ""
    else:
        first, _, rest = reply.strip().partition(" ")
        words, rest = [first], rest.strip()
    picked: list[str] = []
    for word in words:
        by_label = [o.id for o in question.options if o.label == word or o.id == word]
        if word.isdigit() and 1 <= int(word) <= len(question.options):
            picked.append(question.options[int(word) - 1].id)
        elif by_label:
            picked.append(by_label[0])
    if not picked:
        return None
    return SelectAnswer(option_ids=picked if question.multiple else picked[:1], text=rest or None)
