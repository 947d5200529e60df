"""`McpServer`: one configured server, connected through the official SDK and kept connected.

Its whole life is one task (`run`), because the SDK's transports are anyio context managers that must be
entered and left in the same task: connect (`stdio_client` or `streamable_http_client`, then a
`ClientSession`), list the tools, serve calls until the connection ends, and after a failure (a start that
fails, a server that dies, one that stops answering pings) say so through `on_problem` and try again after
a backoff that doubles from `BACKOFF_S` up to `BACKOFF_MAX_S`. Nothing it does raises into the session: a
call on a server that is down is a tool error the model reads.

A stdio server's stderr goes to `<agent dir>/mcp/logs/<name>.log` (a terminal app's screen is no place for
it); a failure's notice names that file.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO, TypeAlias

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.resources.mcp.config import McpServerConfig

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import CallToolResult, Tool

__all__ = ["BACKOFF_MAX_S", "BACKOFF_S", "McpServer", "ServerState"]

log = logging.getLogger(__name__)

ServerState: TypeAlias = Literal["starting", "ready", "failed", "stopped"]
BACKOFF_S = 1.0
BACKOFF_MAX_S = 60.0
PING_S = 15.0
"""How often a quiet connection is pinged, so a server that died between calls is noticed."""


class McpServer:
    def __init__(
        self,
        config: McpServerConfig,
        cwd: Path,
        log_dir: Path,
        on_change: Callable[[McpServer], None],
        on_problem: Callable[[str], None],
        *,
        ping_s: float = PING_S,
    ) -> None:
        self.config = config
        self.ping_s = ping_s
        self.cwd = cwd
        self.log_path = log_dir / f"{config.name}.log"
        self.state: ServerState = "starting"
        self.error: str | None = None
        """Why the last attempt failed (None while it has not)."""
        self.tools: list[Tool] = []
        self.attempts = 0
        self.backoff_s = BACKOFF_S
        self._on_change = on_change
        self._on_problem = on_problem
        self._session: ClientSession | None = None
        self._dead = asyncio.Event()
        self._stopping = False

    @property
    def name(self) -> str:
        return self.config.name

    async def run(self) -> None:
        """Connect, serve, and reconnect after each failure, until cancelled (`stop`)."""
        module = "mcp.client.stdio" if self.config.command is not None else "mcp.client.streamable_http"
        await asyncio.to_thread(importlib.import_module, module)  # most of a second: off the session's loop
        while not self._stopping:
            self.attempts += 1
            self._dead.clear()
            was_ready = False
            try:
                was_ready = await self._serve()
                problem = "stopped answering"
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # an SDK's ExceptionGroup, OSError, a protocol error: never fatal
                problem = _describe(exc)
            if self._stopping:
                break
            self._lost(problem, was_ready)
            await asyncio.sleep(self.backoff_s)
            self.backoff_s = min(self.backoff_s * 2, BACKOFF_MAX_S)

    def stop(self) -> None:
        """Mark the server as stopping (its task is cancelled by the host)."""
        self._stopping = True
        self.state = "stopped"
        self._session = None

    async def call(self, tool: str, arguments: Mapping[str, Any], signal: AbortSignal) -> CallToolResult:
        """Call one of its tools; raises `RuntimeError` (a message for the model) when it is down."""
        session = self._session
        if session is None or self.state != "ready":
            why = f": {self.error}" if self.error else ""
            raise RuntimeError(
                f"MCP server '{self.name}' is not running ({self.state}{why}); it is being restarted in the background"
            )
        from mcp import MCPError
        from mcp.types import CONNECTION_CLOSED

        try:
            return await signal.race(session.call_tool(tool, dict(arguments)))
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                self._dead.set()
                raise RuntimeError(f"MCP server '{self.name}' closed the connection during the call") from None
            raise RuntimeError(f"MCP server '{self.name}': {exc.message}") from None

    # --- the connection -------------------------------------------------------------------------

    async def _serve(self) -> bool:
        """One connection, from start to its end; True when it got as far as listing tools."""
        from mcp import ClientSession

        async with contextlib.AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(self._transport(stack))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            self.tools = await _all_tools(session)
            self._session = session
            self.state = "ready"
            self.error = None
            self.backoff_s = BACKOFF_S
            self._on_change(self)
            try:
                await self._watch(session)
            finally:
                self._session = None
        return True

    def _transport(self, stack: contextlib.AsyncExitStack) -> contextlib.AbstractAsyncContextManager[Any]:
        config = self.config
        if config.command is not None:
            from mcp import StdioServerParameters, stdio_client

            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=dict(config.env) or None, cwd=self.cwd
            )
            return stdio_client(params, errlog=self._errlog(stack))
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        client = httpx2.AsyncClient(headers=dict(config.headers), timeout=httpx2.Timeout(30.0, read=300.0))
        stack.push_async_callback(client.aclose)
        assert config.url is not None
        return streamable_http_client(config.url, http_client=client)

    def _errlog(self, stack: contextlib.AsyncExitStack) -> TextIO:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        errlog = stack.enter_context(self.log_path.open("a", encoding="utf-8"))
        return errlog

    async def _watch(self, session: ClientSession) -> None:
        """Until the connection is found dead: by a failed call, or by a ping that fails or gets no answer."""
        while True:
            try:
                await asyncio.wait_for(self._dead.wait(), timeout=self.ping_s)
                return
            except TimeoutError:
                pass
            try:
                await asyncio.wait_for(session.send_ping(), timeout=PING_S)
            except Exception:
                return

    def _lost(self, problem: str, was_ready: bool) -> None:
        self.state = "failed"
        self.error = problem
        self.tools = []
        self._on_change(self)
        what = "stopped" if was_ready else "could not start"
        where = f" (its output: {self.log_path})" if self.config.command is not None else ""
        self._on_problem(
            f"MCP server '{self.name}' {what}: {problem}{where}; retrying in {self.backoff_s:.0f} s."
            " The rest of the session works without its tools."
        )


async def _all_tools(session: ClientSession) -> list[Tool]:
    from mcp.types import PaginatedRequestParams

    tools: list[Tool] = []
    cursor: str | None = None
    while True:
        listed = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools.extend(listed.tools)
        cursor = listed.next_cursor
        if not cursor:
            return tools


def _describe(exc: BaseException) -> str:
    """The innermost useful message of `exc` (an SDK failure is often an exception group of one)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
