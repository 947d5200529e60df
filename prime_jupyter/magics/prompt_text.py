"""What a `%%prime` cell sends: `{name}` interpolation over the user's namespace, and the last error."""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Mapping

__all__ = ["INSERT_NOTE", "KERNEL_NOTE", "code_block", "fix_prompt", "interpolate", "last_error"]

INSERT_NOTE = (
    "\n\n(Answer with the code in one ```python block and do not run it: it goes into a new cell of my "
    "notebook for me to run.)"
)
_FENCE = re.compile(r"^```[ \t]*(python|py|ipython|python3)?[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)

KERNEL_NOTE = (
    "(The names in backticks above are variables of my notebook's kernel, the one your ipython tool runs in: "
    "work on them there by name. What they hold:)"
)

_LIMIT = 4000
_REFERENCE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:\[(-?\d+)\])?\}")


def interpolate(text: str, namespace: Mapping[str, object]) -> str:
    """Replace `{name}`, `{In[n]}`, `{Out[n]}` and `{Err}` by what they hold.

    A short value stands in place (`Greet {name}` sends `Greet Ada`). A larger one stands as its name in
    backticks, and a note after the prompt summarises it (`value_summary`: a frame's shape, columns,
    dtypes and first rows, not `str(df)`) and says that these are variables of the kernel the agent's
    `ipython` tool runs in, so it works on them there. The user's own words stay first (the session's
    title comes from them). A name the namespace lacks stays as written, so braces in code or prose
    survive. `{Err}` is the last traceback, in place.
    """
    from prime_jupyter.magics.value_summary import inline, summary

    noted: dict[str, str] = {}

    def replace(match: re.Match[str]) -> str:
        name, index = match.group(1), match.group(2)
        if name == "Err" and index is None and "Err" not in namespace:
            return last_error() or match.group(0)
        if name not in namespace:
            return match.group(0)
        value = namespace[name]
        if index is not None:
            try:
                value = value[int(index)]  # type: ignore[index]
            except (KeyError, IndexError, TypeError):
                return match.group(0)
        short = inline(value)
        if short is not None:
            return short
        label = name if index is None else f"{name}[{index}]"
        noted.setdefault(label, summary(value))
        return f"`{label}`"

    sent = _REFERENCE.sub(replace, text)
    if not noted:
        return sent
    notes = "\n".join(f"- `{label}`: {described}" for label, described in noted.items())
    return f"{sent.rstrip()}\n\n{KERNEL_NOTE}\n{notes}"


def last_error() -> str | None:
    """The traceback of the last exception a cell raised in this process, as text."""
    error = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
    if not isinstance(error, BaseException):
        return None
    return _capped("".join(traceback.format_exception(error)))


def fix_prompt(error: str, cell: str | None) -> str:
    """The prompt of `%prime fix`: explain the error briefly, then fix it in the kernel."""
    source = f"The cell that failed:\n\n```python\n{cell}\n```\n\n" if cell else ""
    return (
        "The last cell in my notebook raised an exception. Explain in a sentence or two what went wrong, "
        "then fix it: run the corrected code with the ipython tool (it runs in my notebook's kernel, "
        "with my variables), and show me the corrected code.\n\n"
        f"{source}The traceback:\n\n```\n{error}\n```"
    )


def code_block(answer: str) -> str | None:
    """The last Python (or untagged) fenced code block of an answer, without its fences."""
    blocks = [match.group(2) for match in _FENCE.finditer(answer)]
    return blocks[-1].rstrip("\n") if blocks else None


def _capped(text: str) -> str:
    if len(text) <= _LIMIT:
        return text
    half = _LIMIT // 2
    return f"{text[:half]}\n… [{len(text) - _LIMIT} characters left out] …\n{text[-half:]}"
