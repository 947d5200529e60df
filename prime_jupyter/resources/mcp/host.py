"""`McpHost`: the MCP servers of one session, started beside it and never in front of it.

`start` (on the session's loop) gives each server a task of its own (`client.McpServer.run`) and returns at
once: the first model request does not wait for any server. When a server is up, its tools are handed to
`on_tools` and join the session's tools from the next model request on; when it fails or dies they leave
again, a notice says why (`on_notice`), and it is retried with backoff. A configuration problem (a file that
is not JSON, a name two files define) is a notice too; nothing here is fatal.

Past `search.TOOL_THRESHOLD` MCP tools, `offers` holds back the ones the model has not found with
`mcp_search`, so a request does not carry hundreds of schemas.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from prime_jupyter.agent.tool import AnyTool
from prime_jupyter.resources.mcp.client import PING_S, McpServer, ServerState
from prime_jupyter.resources.mcp.config import McpServerConfig, load_mcp_config
from prime_jupyter.resources.mcp.search import SEARCH_TOOL, TOOL_THRESHOLD, make_search_tool
from prime_jupyter.resources.mcp.tools import PREFIX, mcp_tool

__all__ = ["McpHost", "ServerStatus"]

log = logging.getLogger(__name__)

Notice = Callable[[str, str], None]


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """One server as `/mcp` shows it."""

    name: str
    transport: str
    target: str
    state: ServerState
    tools: tuple[str, ...]
    error: str | None
    attempts: int


class McpHost:
    def __init__(
        self,
        configs: list[McpServerConfig],
        diagnostics: list[str],
        cwd: Path,
        log_dir: Path,
        *,
        accepts_images: bool = True,
        threshold: int = TOOL_THRESHOLD,
        ping_s: float = PING_S,
    ) -> None:
        self.cwd = cwd
        self.threshold = threshold
        self.accepts_images = accepts_images
        self.servers = [McpServer(c, cwd, log_dir, self._changed, self._problem, ping_s=ping_s) for c in configs]
        self.diagnostics = list(diagnostics)
        self._tools: dict[str, list[AnyTool]] = {}
        self._found: set[str] = set()
        self._search = make_search_tool(self._hidden, self._add_found)
        self._tasks: list[asyncio.Task[None]] = []
        self._tool_listeners: list[Callable[[list[AnyTool]], None]] = []
        self._notice_listeners: list[Notice] = []
        self._started = False
        self._released: asyncio.Event | None = None
        self._waiters: list[asyncio.Future[None]] = []
        self._users = 0

    @classmethod
    def load(cls, agent_dir: Path, cwd: Path, *, accepts_images: bool = True) -> McpHost | None:
        """The servers of `<agent dir>/mcp.json` and `<cwd>/.prime/agent/mcp.json`; None when neither
        configures any (and neither is broken)."""
        configs, diagnostics = load_mcp_config(agent_dir, cwd)
        if not configs and not diagnostics:
            return None
        return cls(configs, diagnostics, cwd, agent_dir / "mcp" / "logs", accepts_images=accepts_images)

    # --- life -----------------------------------------------------------------------------------

    def start(self) -> None:
        """Start every server in the background (on the running loop) once `release` is called; returns at
        once. Idempotent."""
        if self._started:
            return
        self._started = True
        self._released = asyncio.Event()
        for diagnostic in self.diagnostics:
            self._tell(diagnostic, "warning")
        if self.servers and importlib.util.find_spec("mcp") is None:
            for server in self.servers:
                server.state, server.error = "failed", "the mcp package is not installed"
            self._tell("MCP servers need the mcp package: pip install 'prime-jupyter[mcp]'; none is started", "error")
            return
        for server in self.servers:
            self._tasks.append(asyncio.ensure_future(self._run(server)))

    def release(self) -> None:
        """Let the servers go: the session is idle, or its first model request went out (connecting
        imports the SDK, most of a second of CPU that the first request must not wait for)."""
        if self._released is not None:
            self._released.set()

    async def _run(self, server: McpServer) -> None:
        assert self._released is not None
        await self._released.wait()
        await server.run()

    def attach(self) -> None:
        """A session uses the servers (`detach` when it is disposed; the last one stops them): a session that
        replaces another in the same folder (`/new`, `/resume`) keeps them running."""
        self._users += 1

    async def detach(self) -> None:
        self._users -= 1
        if self._users <= 0:
            await self.close()

    async def close(self) -> None:
        """Stop every server (their processes end with their connections)."""
        for server in self.servers:
            server.stop()
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()

    def on_tools(self, listener: Callable[[list[AnyTool]], None]) -> Callable[[], None]:
        """Hear the MCP tools (all of them, `mcp_search` included when it is needed) each time they change;
        call the result to stop."""
        self._tool_listeners.append(listener)
        return lambda: self._tool_listeners.remove(listener) if listener in self._tool_listeners else None

    def on_notice(self, listener: Notice) -> Callable[[], None]:
        """Hear each notice (a server that failed, a configuration problem): message and level."""
        self._notice_listeners.append(listener)
        return lambda: self._notice_listeners.remove(listener) if listener in self._notice_listeners else None

    async def wait_for(self, predicate: Callable[[McpHost], bool]) -> None:
        """Until `predicate(self)` holds (checked at each change of a server's state; for tests and tools)."""
        while not predicate(self):
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter

    # --- what the session asks ------------------------------------------------------------------

    def tools(self) -> list[AnyTool]:
        every = [tool for tools in self._tools.values() for tool in tools]
        return [*every, self._search] if len(every) > self.threshold else every

    def offers(self, name: str) -> bool:
        """Whether a tool goes in the next request: every MCP tool while they are few; past the threshold,
        `mcp_search` and the tools it found."""
        deferring = self._count() > self.threshold
        if name == SEARCH_TOOL:
            return deferring
        if not name.startswith(PREFIX) or not deferring:
            return True
        return name in self._found

    def status(self) -> list[ServerStatus]:
        return [
            ServerStatus(
                s.name,
                s.config.transport,
                s.config.target,
                s.state,
                tuple(t.name for t in self._tools.get(s.name, [])),
                s.error,
                s.attempts,
            )
            for s in self.servers
        ]

    def report(self) -> str:
        """What `/mcp` says: each server, its state and its tools."""
        if not self.servers:
            return "No MCP servers are configured (mcp.json has none that can start)."
        lines = [f"MCP servers ({len(self.servers)}):"]
        for status in self.status():
            lines.append(f"- {status.name} [{status.state}] {status.transport}: {status.target}")
            if status.error and status.state != "ready":
                lines.append(f"  last failure: {status.error} (attempt {status.attempts})")
            if status.tools:
                lines.append(f"  tools: {', '.join(status.tools)}")
        if self._count() > self.threshold:
            lines.append(
                f"{self._count()} tools, more than {self.threshold}: the model finds them with {SEARCH_TOOL}"
                f" ({len(self._found)} found so far)."
            )
        return "\n".join(lines)

    # --- changes --------------------------------------------------------------------------------

    def _count(self) -> int:
        return sum(len(tools) for tools in self._tools.values())

    def _hidden(self) -> list[AnyTool]:
        return [tool for tools in self._tools.values() for tool in tools]

    def _add_found(self, tools: list[AnyTool]) -> None:
        self._found.update(tool.name for tool in tools)

    def _changed(self, server: McpServer) -> None:
        if server.state == "ready":
            self._tools[server.name] = [mcp_tool(server, t, accepts_images=self.accepts_images) for t in server.tools]
        else:
            self._tools.pop(server.name, None)
        tools = self.tools()
        for listener in tuple(self._tool_listeners):
            try:
                listener(tools)
            except Exception:
                log.exception("an MCP tools listener failed")
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _problem(self, message: str) -> None:
        self._tell(message, "warning")

    def _tell(self, message: str, level: str) -> None:
        log.warning("%s", message)
        for listener in tuple(self._notice_listeners):
            try:
                listener(message, level)
            except Exception:
                log.exception("an MCP notice listener failed")
