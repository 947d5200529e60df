"""What a `%%prime` prompt says of a variable it refers to: a short value as it is, a large one summarised.

`{df}` in a prompt used to send `str(df)` (48 rows of text, and not the word `df`). A DataFrame is now its
shape, columns and dtypes and a few rows; a Series or an array its length, dtype and first values; a long
string or container is capped; the model is told the names, so it works on them in the kernel rather
than on a copy in the prompt. pandas and numpy are looked up in `sys.modules`, never imported.
"""

from __future__ import annotations

import reprlib
import sys

__all__ = ["INLINE_LIMIT", "inline", "summary"]

INLINE_LIMIT = 80
"""A value whose text is one line this long at most stands in the prompt as it is."""
_TEXT_LIMIT = 2000
_HEAD_ROWS = 5
_COLUMNS = 30

_REPR = reprlib.Repr()
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = _REPR.maxdeque = 20
_REPR.maxdict = 20
_REPR.maxstring = _REPR.maxother = 200
_REPR.maxlevel = 3


def inline(value: object) -> str | None:
    """The value's own text when it is short enough to stand in the prompt (`Greet {name}`), else None."""
    if _is_table(value):
        return None
    try:
        text = str(value)
    except Exception:
        return None
    return text if len(text) <= INLINE_LIMIT and "\n" not in text else None


def summary(value: object) -> str:
    """What the model is told of a value too large to stand in the prompt."""
    pd, np = sys.modules.get("pandas"), sys.modules.get("numpy")
    try:
        if pd is not None and isinstance(value, pd.DataFrame):
            return _frame(value)
        if pd is not None and isinstance(value, pd.Series):
            head = value.head(_HEAD_ROWS).to_string()
            return f"Series, {len(value):,} values of dtype {value.dtype}; the first {_HEAD_ROWS}:\n{_block(head)}"
        if np is not None and isinstance(value, np.ndarray):
            shape = "x".join(f"{n:,}" for n in value.shape)
            text = np.array2string(value, threshold=40, edgeitems=3)
            return f"ndarray, shape {shape}, dtype {value.dtype}:\n{_block(_capped(text))}"
        if isinstance(value, str):
            return f"str, {len(value):,} characters:\n{_block(_capped(value))}"
        if isinstance(value, (list, tuple, dict, set, frozenset)):
            return f"{type(value).__name__}, {len(value):,} items: {_REPR.repr(value)}"
        return f"{type(value).__name__}:\n{_block(_capped(str(value)))}"
    except Exception as error:  # a value whose own methods fail: say so rather than fail the prompt
        return f"{type(value).__name__} (it could not be shown: {type(error).__name__}: {error})"


def _frame(frame: object) -> str:
    rows, columns = frame.shape  # type: ignore[attr-defined]
    dtypes = list(frame.dtypes.items())  # type: ignore[attr-defined]
    listed = ", ".join(f"{name} ({dtype})" for name, dtype in dtypes[:_COLUMNS])
    more = f", and {columns - _COLUMNS:,} more" if columns > _COLUMNS else ""
    head = frame.head(_HEAD_ROWS).to_string(max_cols=12, max_colwidth=40)  # type: ignore[attr-defined]
    shown = min(rows, _HEAD_ROWS)
    return (
        f"DataFrame, {rows:,} rows, {columns:,} columns; columns (dtype): {listed}{more}; "
        f"the first {shown} rows:\n{_block(_capped(head))}"
    )


def _is_table(value: object) -> bool:
    pd, np = sys.modules.get("pandas"), sys.modules.get("numpy")
    kinds = tuple(k for k in (pd and pd.DataFrame, pd and pd.Series, np and np.ndarray) if isinstance(k, type))
    return bool(kinds) and isinstance(value, kinds) and getattr(value, "size", 0) > 1


def _block(text: str) -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}\n{text}\n{fence}"


def _capped(text: str) -> str:
    if len(text) <= _TEXT_LIMIT:
        return text
    half = _TEXT_LIMIT // 2
    return f"{text[:half]}\n… [{len(text) - _TEXT_LIMIT:,} characters left out] …\n{text[-half:]}"
