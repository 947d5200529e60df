"""When `jupyter prime` opens the terminal app, and how it runs it.

The app opens on a terminal only: no `-p`, no `--mode json`, standard input and output both TTYs.
Anything else keeps the print and JSON modes as they are. The app's connection is opened after its first
paint, and closed here once the app has exited, on the same event loop the session ran on: an in-process
session is disposed (its kernel shut down); an attached one only loses this client and keeps running.

Start-up (the one place its tricks live; `benchmarks/bench_tui.py` measures them against pi, on 2 shared
cores): the first paint needs Textual (about 0.55 s to import) and the chat screen only. Everything else
is imported after it, off the event loop, so the editor takes keys while it loads:

- the in-process runtime (`connection.in_process`: pydantic models, tools, session store; about 0.25 s)
  is imported in a thread before the session is opened (opened on the loop, once its modules are there);
- the provider SDK (`import anthropic` is about 1.2 s, and 3,000 modules) is imported in a thread once
  the session is open, since its model says which SDK. On the loop it blocked the first prompt: the loop
  stalled 3.7 s at the first Enter, keys included (`bench_tui.py`, before this). Prompts sent meanwhile
  wait for it without blocking the loop (`_AfterImport`); nothing typed is lost. Its objects are frozen
  out of the collector once it is done (`gc_policy.modules_loaded()`): unfrozen, the SDK's 200,000-odd
  objects were walked by every full collection during the first answer, a 100-300 ms stall each.

Threads help here although imports hold the GIL: the loop only needs it in short turns (a key, a
frame), and the interpreter hands it over every 5 ms (`sys.getswitchinterval()`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from prime_jupyter.ai.types import ImageContent
    from prime_jupyter.connection.base import AgentConnection, StreamingBehavior
    from prime_jupyter.protocol.common import CompactResult
    from prime_jupyter.protocol.snapshot import PromptResult

    from .connect import Connector

__all__ = ["cwd_label", "run_app", "run_attached", "run_local", "wants_app"]


def wants_app(print_mode: bool, mode: str) -> bool:
    """True when `jupyter prime` should open the interactive app rather than print an answer."""
    if print_mode or mode != "text":
        return False
    return sys.stdin is not None and sys.stdin.isatty() and sys.stdout.isatty()


def cwd_label(cwd: Path) -> str:
    """The working directory as the footer shows it: `~` for the home directory."""
    home = Path.home()
    if cwd == home or cwd.is_relative_to(home):
        return "~" + str(cwd)[len(str(home)) :]
    return str(cwd)


def run_local(ns: dict[str, object]) -> int:
    """`jupyter prime` on a terminal: the app on a session in this process."""
    cwd = Path(os.getcwd())
    words = ns.get("messages")
    return run_app(lambda: open_local_in_background(ns, cwd), cwd, words if isinstance(words, list) else ())


async def open_local_in_background(ns: dict[str, object], cwd: Path) -> AgentConnection:
    """The in-process session, its runtime imported in a thread first and its provider SDK in a thread
    after (see the module's doc); the connection's provider calls wait for that second import."""
    await asyncio.to_thread(importlib.import_module, "prime_jupyter.connection.in_process")
    from prime_jupyter import gc_policy
    from prime_jupyter.connection.in_process import InProcessAgentConnection

    from .connect import open_local

    connection = await open_local(ns, cwd)
    if not isinstance(connection, InProcessAgentConnection):
        return connection
    imported = asyncio.get_running_loop().run_in_executor(None, connection.import_provider_sdk)
    imported.add_done_callback(lambda _: gc_policy.modules_loaded())
    return cast("AgentConnection", _AfterImport(connection, imported))


class _AfterImport:
    """A connection whose calls that reach the provider first wait for its SDK's import (off the loop);
    every other attribute is the connection's own."""

    def __init__(self, connection: AgentConnection, imported: asyncio.Future[None]) -> None:
        self._connection = connection
        self._imported = imported

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)

    async def _sdk(self) -> None:
        with contextlib.suppress(Exception):  # an SDK that cannot be imported fails the turn, with its error
            await asyncio.shield(self._imported)

    async def prompt(
        self,
        message: str,
        images: list[ImageContent] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
    ) -> PromptResult:
        await self._sdk()
        return await self._connection.prompt(message, images, streaming_behavior)

    async def steer(self, message: str, images: list[ImageContent] | None = None) -> PromptResult:
        await self._sdk()
        return await self._connection.steer(message, images)

    async def follow_up(self, message: str, images: list[ImageContent] | None = None) -> PromptResult:
        await self._sdk()
        return await self._connection.follow_up(message, images)

    async def compact(self, custom_instructions: str | None = None) -> CompactResult:
        await self._sdk()
        return await self._connection.compact(custom_instructions)


def run_attached(args: argparse.Namespace) -> int:
    """`jupyter prime attach` on a terminal: the app on a session of a running Jupyter server."""
    from .connect import open_attached

    cwd = Path(os.getcwd())
    return run_app(lambda: open_attached(args, cwd), cwd, args.messages, attached=True)


def run_app(connect: Connector, cwd: Path, words: Sequence[str] = (), attached: bool = False) -> int:
    """Run the app until the user quits; the words given on the command line are its first prompt."""
    prompt = " ".join(words).strip() or None
    return asyncio.run(_run(connect, cwd, prompt, attached))


async def _run(connect: Connector, cwd: Path, prompt: str | None, attached: bool) -> int:
    from .app import PrimeApp  # Textual: about half a second, imported only when the app runs

    app = PrimeApp(connect, cwd_label=cwd_label(cwd), initial_prompt=prompt, attached=attached)
    try:
        await app.run_async()
    finally:
        if app.connection is not None:
            await app.connection.dispose()
    if app.failure is not None:
        print(f"error: {app.failure}", file=sys.stderr)
        return 1
    return 0
