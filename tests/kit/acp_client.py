"""An ACP client for the tests: the `agent-client-protocol` package's client side, recording what it is sent."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import acp
from acp import schema
from acp.client.connection import ClientSideConnection

from kit.cli import cli_env

WAIT_S = 60.0


class Recorder:
    """Records every `session/update` and answers `session/request_permission` with `answer` (an option id,
    or None: cancelled)."""

    def __init__(self, answer: str | None = "allow_once") -> None:
        self.answer = answer
        self.updates: list[Any] = []
        self.permission_requests: list[schema.RequestPermissionRequest] = []
        self._changed = asyncio.Condition()

    def on_connect(self, conn: acp.Agent) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        async with self._changed:
            self.updates.append(update)
            self._changed.notify_all()

    async def request_permission(
        self, session_id: str, tool_call: schema.ToolCallUpdate, options: list[schema.PermissionOption], **kwargs: Any
    ) -> schema.RequestPermissionResponse:
        async with self._changed:
            self.permission_requests.append(
                schema.RequestPermissionRequest(session_id=session_id, tool_call=tool_call, options=options)
            )
            self._changed.notify_all()
        if self.answer is None:
            return schema.RequestPermissionResponse(outcome=schema.DeniedOutcome(outcome="cancelled"))
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id=self.answer)
        )

    async def wait_for(self, condition: Callable[[], bool]) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(condition), WAIT_S)

    def of(self, kind: str) -> list[Any]:
        """The updates of one `sessionUpdate` kind."""
        return [u for u in self.updates if u.session_update == kind]

    def agent_text(self) -> str:
        return "".join(u.content.text for u in self.of("agent_message_chunk"))

    def tool_update(self, call_id: str, status: str) -> Any:
        found = [u for u in self.of("tool_call_update") if u.tool_call_id == call_id and u.status == status]
        assert found, f"no {status} update of {call_id}: {self.updates}"
        return found[-1]


@contextlib.asynccontextmanager
async def acp_agent(
    agent_dir: Path, client: Recorder, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSideConnection]:
    """`jupyter prime <args>` (with `--mode acp` among them) spawned, initialized, as the client sees it;
    `env`: the whole environment (default: `cli_env(agent_dir)`)."""
    command = (sys.executable, "-m", "prime_jupyter.cli", *args)
    async with acp.spawn_agent_process(
        client, command[0], *command[1:], env=env or cli_env(agent_dir), cwd=cwd or agent_dir.parent
    ) as (conn, _process):
        answer = await asyncio.wait_for(conn.initialize(protocol_version=acp.PROTOCOL_VERSION), WAIT_S)
        assert answer.protocol_version == 1
        yield conn
