"""The steering and follow-up queues of a live session."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from prime_jupyter.ai.types import Message, UserMessage

__all__ = ["MessageQueue"]

Mode = Literal["one-at-a-time", "all"]


@dataclass
class MessageQueue:
    """Messages waiting for the loop. `take()` hands out one or all per the mode; abort keeps them."""

    mode: Mode = "one-at-a-time"
    items: list[UserMessage] = field(default_factory=list)

    def push(self, message: UserMessage) -> None:
        self.items.append(message)

    def take(self) -> list[Message]:
        if not self.items:
            return []
        if self.mode == "all":
            taken, self.items = self.items, []
        else:
            taken, self.items = self.items[:1], self.items[1:]
        return list(taken)

    def texts(self) -> list[str]:
        return [m.text() for m in self.items]

    def clear(self) -> list[UserMessage]:
        taken, self.items = self.items, []
        return taken
