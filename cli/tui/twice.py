"""A key that acts when pressed twice in a row, soon enough: Esc on an empty editor opens the session
tree, Ctrl+C with nothing to clear or abort quits (as in pi and other terminal agents)."""

from __future__ import annotations

import time

__all__ = ["AGAIN_S", "Twice"]

AGAIN_S = 2.0
"""How soon the second press must follow the first."""


class Twice:
    """Counts the presses of one key; anything else that happens in between may `reset` it."""

    __slots__ = ("_until",)

    def __init__(self) -> None:
        self._until = 0.0

    def press(self) -> bool:
        """True for the second press within `AGAIN_S` of the first (which then starts over), else False."""
        now = time.monotonic()
        if now < self._until:
            self._until = 0.0
            return True
        self._until = now + AGAIN_S
        return False

    def reset(self) -> None:
        self._until = 0.0
