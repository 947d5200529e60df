"""What a `%%prime` cell sends: `{name}` interpolation over the user's namespace, and the last error."""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Mapping

__all__ = ["INSERT_NOTE", "code_block", "fix_prompt", "interpolate", "last_error"]

INSERT_NOTE = (
    "\n\n(Answer with the code in one ```python block and do not run it: it goes into a new cell of my "
    "notebook for me to run.)"
)
_FENCE = re.compile(r"^```[ \t]*(python|py|ipython|python3)?[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)

_LIMIT = 4000
_REFERENCE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:\[(-?\d+)\])?\}")


def interpolate(text: str, namespace: Mapping[str, object]) -> str:
    """Replace `{name}`, `{In[n]}`, `{Out[n]}` and `{Err}` by their values (as `str`, capped).

    A name the namespace lacks stays as written, so braces in code or prose survive.
    """

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
        return _capped(str(value))

    return _REFERENCE.sub(replace, text)


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
