"""`McpLink`: a session's MCP servers (`resources.mcp.McpHost`) wired into it.

The servers' tools are kept in the session's own tool list, which the loop reads at each model request: a
server that comes up joins from the next request, one that goes down leaves. The servers are let go (`release`:
connecting imports the SDK and spawns processes) only when that cannot hold up a model request: at once when
the session is idle, else once the run's first answer is streaming, or the run ended.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from prime_jupyter.agent.tool import AnyTool
from prime_jupyter.ai.types import AssistantMessage
from prime_jupyter.protocol.events import AgentEnd, MessageStart, SessionEvent

if TYPE_CHECKING:
    from prime_jupyter.resources.mcp.host import McpHost

__all__ = ["McpLink"]


class McpLink:
    def __init__(
        self,
        host: McpHost,
        tools: list[AnyTool],
        wrap: Callable[[AnyTool], AnyTool],
        tell: Callable[[str, str], None],
        running: Callable[[], bool],
    ) -> None:
        """`tools`: the session's tool list (changed in place); `wrap`: what every session tool gets (the
        redaction of secrets); `tell`: a notice; `running`: whether a run is going."""
        self.host = host
        self._tools = tools
        self._wrap = wrap
        self._running = running
        self._mine: list[AnyTool] = []
        host.attach()
        self._stop = [host.on_tools(self._changed), host.on_notice(tell)]
        self._changed(host.tools())  # a replaced session's servers may be up already

    def start(self) -> None:
        """Start the servers (once; on the running loop), let go at once if the session is idle."""
        self.host.start()
        asyncio.get_running_loop().call_soon(self._release_when_idle)

    def release(self) -> None:
        self.host.release()

    def seen(self, event: SessionEvent) -> None:
        """A session event: the first answer streaming (or the run's end) lets the servers go."""
        if isinstance(event, AgentEnd) or (
            isinstance(event, MessageStart) and isinstance(event.message, AssistantMessage)
        ):
            self.host.release()

    def offers(self, name: str) -> bool:
        return self.host.offers(name)

    def report(self) -> str:
        self.start()
        return self.host.report()

    async def dispose(self) -> None:
        """This session is done with the servers (the last session to go stops them)."""
        for stop in self._stop:
            stop()
        self._stop = []
        await self.host.detach()

    def _release_when_idle(self) -> None:
        if not self._running():
            self.host.release()

    def _changed(self, tools: list[AnyTool]) -> None:
        for tool in self._mine:
            if tool in self._tools:
                self._tools.remove(tool)
        self._mine = [self._wrap(tool) for tool in tools]
        self._tools.extend(self._mine)
