"""What the chat's footer shows besides the view state: the kernel's state, the link, the git branch,
and when a run started (a long one rings the bell when it ends).

The view state does not carry the kernel's state: `get_state()` does, and it is asked again only after an
event that may have changed it (`saw`) or a command that acted on the kernel (`kernel_changed`).
"""

from __future__ import annotations

import time

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.view import ViewState

from .widgets.status_footer import FooterInfo, footer_info

__all__ = ["BELL_AFTER_S", "ChatStatus"]

_KERNEL_EVENTS = frozenset({"agent_start", "agent_end", "tool_execution_start", "tool_execution_end"})
"""After these the kernel's state may have changed (the view state does not carry it: `get_state()` does)."""

BELL_AFTER_S = 5.0
KERNEL_POLL_S = 0.5
"""A run longer than this rings the terminal's bell when it ends (the user may be looking elsewhere)."""


class ChatStatus:
    """The footer's state outside the view fold."""

    def __init__(self) -> None:
        self.kernel_state: str | None = None
        self._kernel_stale = True
        self.link = "connected"
        self.branch: str | None = None
        """The git branch of the session's directory, read again when a run or a command ends."""
        self._run_started: float | None = None

    def saw(self, event_type: str) -> None:
        """A session event of this type was folded."""
        self._kernel_stale |= event_type in _KERNEL_EVENTS

    def kernel_changed(self) -> None:
        """The kernel's state may have changed (a command acted on it, the session was replaced)."""
        self._kernel_stale = True

    async def refresh_kernel(self, connection: AgentConnection | None) -> None:
        """Ask the connection for the kernel's state if it may have changed."""
        if not self._kernel_stale or connection is None:
            return
        self._kernel_stale = False
        try:
            self.kernel_state = (await connection.get_state()).kernel_state
        except PrimeError:  # the server is out of reach: the connection says so, and reconnects
            self._kernel_stale = True
        if self.kernel_state == "starting":  # no event says when it is ready: the screen asks again
            self._kernel_stale = True

    @property
    def kernel_starting(self) -> bool:
        """The kernel was starting when last asked (the screen asks again every `KERNEL_POLL_S`)."""
        return self.kernel_state == "starting"

    def run_ended(self, running: bool) -> tuple[bool, bool]:
        """Follow the run: (it has just ended, it was long enough to ring the bell)."""
        now = time.monotonic()
        if running and self._run_started is None:
            self._run_started = now
        elif not running and self._run_started is not None:
            long_run = now - self._run_started > BELL_AFTER_S
            self._run_started = None
            return True, long_run
        return False, False

    def info(self, state: ViewState, running: bool) -> FooterInfo:
        return footer_info(state, self.kernel_state, running, self.link, self.branch)
