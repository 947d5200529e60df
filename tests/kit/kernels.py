"""Helpers shared by the kernel tests (a plain module: test files import it by name)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from prime_jupyter.agent.tool import AgentToolResult
from prime_jupyter.ai.abort import AbortController
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner
from prime_jupyter.tools.ipython import IpythonParams, make_ipython_tool

RunTool = Callable[..., Awaitable[AgentToolResult]]


def kernel_processes() -> list[int]:
    """Live ipykernel processes descending from this test process (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    family, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - family
        family |= frontier
    return [pid for pid in family if b"ipykernel" in _cmdline(pid)]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def tool_runner(
    provisioner: IpythonKernelProvisioner, *, accepts_images: bool = True, timeout_s: float = 600
) -> RunTool:
    """`await run(code)` runs the ipython tool; `updates` (a list) collects its streamed updates."""
    tool = make_ipython_tool(provisioner, accepts_images=accepts_images, timeout_s=timeout_s)

    async def run(
        code: str, *, controller: AbortController | None = None, updates: list[AgentToolResult] | None = None
    ) -> AgentToolResult:
        controller = controller or AbortController()
        sink = updates.append if updates is not None else (lambda _update: None)
        return await tool.execute("call-1", IpythonParams(code=code), controller.signal, sink)

    return run


def text_of(result: AgentToolResult) -> str:
    first = result.content[0]
    assert first.type == "text"
    return first.text


def status_of(result: AgentToolResult) -> object:
    assert isinstance(result.details, dict)
    return result.details["status"]
