"""One line per saved session, as the command line lists them and an ambiguous lookup names them:
id, age, name, first prompt."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prime_jupyter.sessions.listing import SessionInfo

__all__ = ["age", "one_line", "session_row"]


def age(when: datetime, now: datetime | None = None) -> str:
    """How long ago, in the largest unit that fits: `just now`, `5 min ago`, `3 h ago`, `2 days ago`."""
    seconds = max(0.0, ((now or datetime.now(UTC)) - when).total_seconds())
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {'day' if unit == 'days' and count == 1 else unit} ago"
    return "just now"


def one_line(text: str, width: int) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def session_row(info: SessionInfo, now: datetime | None = None) -> str:
    """`<id>  <age>  "<name>"  <first prompt>` (the name only when there is one)."""
    name = f'  "{one_line(info.name, 30)}"' if info.name else ""
    prompt = one_line(info.first_message, 60) if info.first_message else "(no prompt)"
    return f"{info.id}  {age(info.modified, now):>11}{name}  {prompt}"
