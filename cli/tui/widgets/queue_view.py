"""The messages waiting while a run goes (steering first, then follow-ups), shown above the editor."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

__all__ = ["QueueView"]


class QueueView(Static):
    """Hidden while nothing waits."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.display = False

    def show(self, steering: Sequence[str], follow_up: Sequence[str]) -> None:
        text = Text()
        for label, items in (("steer", steering), ("follow-up", follow_up)):
            for item in items:
                line = " ".join(item.split())
                text.append(f"{label}: ", style="bold")
                text.append((line if len(line) <= 100 else line[:99] + "…") + "\n")
        text.rstrip()
        self.update(text)
        self.display = bool(steering or follow_up)
