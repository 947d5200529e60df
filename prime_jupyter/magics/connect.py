"""The one place the notebook surface gets its connection (design.md D11): through `open_connection`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from prime_jupyter.connection import open_connection
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.kernel.ops import KernelLauncher
from prime_jupyter.runtime.tool_set import AnyTool

if TYPE_CHECKING:
    from prime_jupyter.connection.in_process import LocalTarget

__all__ = ["connect"]


async def connect(
    target: LocalTarget, kernel_launcher: KernelLauncher | None = None, extra_tools: Sequence[AnyTool] = ()
) -> AgentConnection:
    """A connection to the session `target` names; `kernel_launcher`: where its `ipython` tool runs;
    `extra_tools`: the caller's own tools (`Session.tool`)."""
    return await open_connection(
        dataclasses.replace(target, kernel_launcher=kernel_launcher, extra_tools=tuple(extra_tools))
    )
