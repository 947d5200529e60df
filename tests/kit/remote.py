"""Helpers of the `HttpAgentConnection` tests: attach with the scripted model, collect events, wait."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from prime_jupyter.connection.http import HttpAgentConnection
from prime_jupyter.connection.types import ConnectionEvent, SessionEventReceived
from prime_jupyter.protocol.requests import ModelRef
from prime_jupyter.testing import ScriptedLLMServer
from prime_jupyter.testing.jupyter_process import JupyterProcess, write_agent_dir

M1 = ModelRef(provider="scripted", id="m1")


async def attach(
    server: JupyterProcess, llm: ScriptedLLMServer, cwd: Path, session: str | None = None
) -> HttpAgentConnection:
    write_agent_dir(server.agent_dir, llm)
    return await HttpAgentConnection.connect(server.endpoint, session, cwd=str(cwd), model=M1)


class Seen(list[ConnectionEvent]):
    """The events a connection delivered, in order, with a way to wait for the next ones."""

    def __init__(self) -> None:
        super().__init__()
        self._changed = asyncio.Event()

    def add(self, event: ConnectionEvent) -> None:
        self.append(event)
        self._changed.set()

    async def until(self, condition: Callable[[], bool], timeout_s: float = 30.0) -> None:
        """Wait until the events delivered so far satisfy `condition` (a bound, not a timing assertion)."""
        async with asyncio.timeout(timeout_s):
            while not condition():
                self._changed.clear()
                await self._changed.wait()


def collect(conn: HttpAgentConnection) -> Seen:
    seen = Seen()
    conn.subscribe(seen.add)
    return seen


def session_events(seen: list[ConnectionEvent]) -> list[object]:
    return [e.event for e in seen if isinstance(e, SessionEventReceived)]
