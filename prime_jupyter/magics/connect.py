"""The one place the notebook surface gets its connection (design.md D11): through `open_connection`.

`LocalTarget` has no kernel launcher yet, so a session whose `ipython` tool runs in the notebook's own
shell is built from the options the target makes, with the launcher added; once `LocalTarget` carries
`kernel_launcher`, that branch is `open_connection(replace(target, kernel_launcher=launcher))`.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from prime_jupyter.connection import open_connection
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.kernel.ops import KernelLauncher

if TYPE_CHECKING:
    from prime_jupyter.connection.in_process import LocalTarget

__all__ = ["connect"]


async def connect(target: LocalTarget, kernel_launcher: KernelLauncher | None = None) -> AgentConnection:
    """A connection to the session `target` names; `kernel_launcher`: where its `ipython` tool runs."""
    if kernel_launcher is None:
        return await open_connection(target)
    from prime_jupyter.connection.in_process import InProcessAgentConnection

    return InProcessAgentConnection.create(dataclasses.replace(target.options(), kernel_launcher=kernel_launcher))
