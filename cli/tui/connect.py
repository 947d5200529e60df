"""Where the app gets its connection: one function per kind of target, so the door can change in one line.

`open_local` starts a session in this process; `open_attached` reaches a session living in a running
Jupyter server. Both return an `AgentConnection`, the only thing the app talks to.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Awaitable, Callable
from pathlib import Path

from prime_jupyter.connection import open_connection
from prime_jupyter.connection.base import AgentConnection

__all__ = ["Connector", "open_attached", "open_local"]

Connector = Callable[[], Awaitable[AgentConnection]]
"""Opens the app's connection; the app awaits it after its first paint, so the editor is usable at once."""


async def open_local(ns: dict[str, object], cwd: Path) -> AgentConnection:
    """An in-process session from `jupyter prime`'s arguments (`-c`, `-r`, `--model`, `--tools`, ...), with
    the `ask` tool: a person is there to answer."""
    from ..__main__ import _target

    return await open_connection(dataclasses.replace(_target(ns, cwd), interactive=True))


async def open_attached(args: argparse.Namespace, cwd: Path) -> AgentConnection:
    """A session in a running Jupyter server, from `jupyter prime attach`'s arguments."""
    from ..attach import _target

    return await open_connection(_target(args, cwd))
