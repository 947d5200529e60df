"""The one place the notebook surface gets a connection (design.md D11): switch it to `open_connection`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from prime_jupyter.ai.models import ThinkingLevel
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.kernel.ops import KernelLauncher

__all__ = ["Target", "connect"]


@dataclass(frozen=True)
class Target:
    """What session to open, and where its `ipython` tool's kernel comes from."""

    cwd: Path
    mode: Literal["new", "continue", "resume", "none"] = "new"
    resume: str | None = None
    model: str | None = None
    thinking: ThinkingLevel | None = None
    tools: tuple[str, ...] | None = None
    context_files: bool = True
    kernel_launcher: KernelLauncher | None = None


async def connect(target: Target) -> AgentConnection:
    """A connection to a session in this process, on the calling (agent) loop."""
    from prime_jupyter.connection.in_process import InProcessAgentConnection
    from prime_jupyter.runtime.factory import SessionOptions

    options = SessionOptions(
        cwd=target.cwd,
        mode=target.mode,
        resume=target.resume,
        model=target.model,
        thinking=target.thinking,
        tools=list(target.tools) if target.tools is not None else None,
        context_files=target.context_files,
        kernel_launcher=target.kernel_launcher,
    )
    return InProcessAgentConnection.create(options)
