"""The one place the notebook surface gets its connection (design.md D11): through `open_connection`.

`LocalTarget` has no kernel launcher (nor custom tools) yet, so a session whose `ipython` tool runs in
the notebook's own shell, or that has tools of the caller's own, is built from the options the target
makes with those added; once `LocalTarget` carries them, that branch is `open_connection(replace(...))`.
"""

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
    if kernel_launcher is None and not extra_tools:
        return await open_connection(target)
    from prime_jupyter.connection.in_process import InProcessAgentConnection

    options = dataclasses.replace(target.options(), kernel_launcher=kernel_launcher, extra_tools=list(extra_tools))
    return InProcessAgentConnection.create(options)
