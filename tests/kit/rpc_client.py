"""An RPC client for the tests: `jupyter prime --mode rpc` spawned, its stdout read as JSON lines."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from kit.cli import cli_env

WAIT_S = 60.0


class RpcClient:
    """Writes command lines to the process and records every line it writes back, in order."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[Any] = []
        self.raw: list[bytes] = []
        self._changed = asyncio.Condition()
        self._reading = asyncio.ensure_future(self._read())
        self._ids = 0

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            async with self._changed:
                self.raw.append(line)
                self.lines.append(json.loads(line))  # every line of stdout is JSON, or the test fails here
                self._changed.notify_all()

    async def send_line(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line)
        await self.process.stdin.drain()

    async def send(self, command: dict[str, Any]) -> str:
        """Send a command with a fresh id; the id."""
        self._ids += 1
        request_id = f"r{self._ids}"
        await self.send_line(json.dumps({"id": request_id, **command}).encode() + b"\n")
        return request_id

    async def call(self, command: dict[str, Any]) -> dict[str, Any]:
        """Send a command and wait for its response."""
        request_id = await self.send(command)
        return await self.response(request_id)

    async def response(self, request_id: str) -> dict[str, Any]:
        await self.wait_for(lambda: any(r.get("id") == request_id for r in self.responses()))
        (found,) = [r for r in self.responses() if r.get("id") == request_id]
        return found

    async def ok(self, command: dict[str, Any]) -> Any:
        """Send a command that must succeed; its data."""
        answer = await self.call(command)
        assert answer["success"] is True, answer
        assert answer["command"] == command["type"]
        return answer["data"]

    def responses(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("type") == "response"]

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("type") == kind]

    async def wait_for(self, condition: Callable[[], bool]) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(condition), WAIT_S)

    async def wait_for_event(self, kind: str, count: int = 1) -> list[dict[str, Any]]:
        await self.wait_for(lambda: len(self.events(kind)) >= count)
        return self.events(kind)

    async def close_stdin(self) -> int:
        """End stdin; the exit code once the process is gone."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        return await self.exited()

    async def exited(self) -> int:
        """The exit code once the process is gone and every line it wrote was read."""
        code = await asyncio.wait_for(self.process.wait(), WAIT_S)
        await asyncio.wait_for(self._reading, WAIT_S)
        return code


@contextlib.asynccontextmanager
async def rpc_process(
    agent_dir: Path, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> AsyncIterator[RpcClient]:
    """`jupyter prime <args>` (with `--mode rpc` among them) spawned; stdin is closed and the process
    waited for on the way out (killed if it does not end)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "prime_jupyter.cli",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=env or cli_env(agent_dir),
        cwd=cwd or agent_dir.parent,
        limit=50 * 1024 * 1024,
    )
    client = RpcClient(process)
    try:
        yield client
    finally:
        if process.returncode is None:
            try:
                await client.close_stdin()
            except TimeoutError:
                process.kill()
                await process.wait()
        client._reading.cancel()
