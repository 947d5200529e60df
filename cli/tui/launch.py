"""When `jupyter prime` opens the terminal app, and how it runs it.

The app opens on a terminal only: no `-p`, no `--mode json`, standard input and output both TTYs.
Anything else keeps the print and JSON modes as they are. The app's connection is opened after its first
paint, and closed here once the app has exited, on the same event loop the session ran on: an in-process
session is disposed (its kernel shut down); an attached one only loses this client and keeps running.

Start-up (the one place its tricks live; `benchmarks/bench_tui.py` measures them against pi, on 2 shared
cores): the first paint needs Textual (about 0.55 s to import) and the boot screen only (the chat's editor
and footer: `screens/boot.py`). Everything else is imported after it, off the event loop, so the editor
takes keys while it loads:

- the chat screen (its widgets, the view fold, pydantic) is imported in a thread, then swapped in for
  the boot screen with what was typed;
- the in-process runtime (`connection.in_process`: pydantic models, tools, session store; about 0.25 s)
  is imported in a thread before the session is opened (opened on the loop, once its modules are there);
- the provider SDK (`import anthropic` is about 1.2 s, and 3,000 modules) is imported in a thread once
  the session is open and drawn, since its model says which SDK (and so as not to take the GIL from
  the drawing of a long session). On the loop it blocked the first prompt:
  the loop stalled 3.7 s at the first Enter, keys included (`bench_tui.py`, before this). Prompts sent
  meanwhile wait for it without blocking the loop (`_AfterImport`); nothing typed is lost. The
  collector is paused while it imports and its objects are frozen once it is done
  (`gc_policy.bulk_load()`): with the collector on, full passes over the modules being imported held
  the GIL, and so the loop, 15-94 ms at a time just before the first answer streamed
  (`bench_tui.py`'s stream case); after it, every full collection of the first answer would walk them.

The in-process session itself runs on an event loop of its own, in a thread (`runtime_thread.py`): on
the app's loop, its provider stream held every key 100-220 ms while an answer streamed.

Threads help here although imports hold the GIL: the loop only needs it in short turns (a key, a
frame), and gets it back at the interpreter's forced switches (every 5 ms). Keys typed during these
imports showed in 10-30 ms (p50) on the loaded machine; making the importing thread sleep before each
module it imports, to hand the GIL over more often, measured no better.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..args import wants_app  # decided before this module is imported; named here too for its callers

if TYPE_CHECKING:
    from textual.app import App

    from prime_jupyter.ai.types import ImageContent
    from prime_jupyter.connection.base import AgentConnection, StreamingBehavior
    from prime_jupyter.connection.in_process import InProcessAgentConnection
    from prime_jupyter.protocol.common import CompactResult
    from prime_jupyter.protocol.snapshot import ConnectionState, PromptResult

    from .connect import Connector

__all__ = ["LocalStart", "cwd_label", "run_app", "run_attached", "run_local", "wants_app"]


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
    start = LocalStart(ns, cwd)
    return run_app(start.open, cwd, words if isinstance(words, list) else (), started=start.bind)


class LocalStart:
    """Opens the in-process session for the app: its runtime imported in a thread first, its provider SDK
    in a thread once the session is drawn (see the module's doc)."""

    def __init__(self, ns: dict[str, object], cwd: Path) -> None:
        self._ns = ns
        self._cwd = cwd
        self._after_refresh: Callable[[Callable[[], object]], object] | None = None

    def bind(self, app: App[None]) -> None:
        """The app the session is drawn in: the SDK's import starts after its next refresh."""
        self._after_refresh = app.call_after_refresh

    async def open(self) -> AgentConnection:
        """The session, opened on a loop of its own (`runtime_thread.py`), as the app's loop uses it."""
        from .runtime_thread import RuntimeThread, on_thread

        runtime = RuntimeThread()
        app_loop = asyncio.get_running_loop()
        after_refresh = self._after_refresh

        def after_app_refresh(callback: Callable[[], object]) -> None:
            """From the session's loop: `callback` back on it once the app has refreshed."""
            if after_refresh is None:
                runtime.call_soon(callback)
            else:
                app_loop.call_soon_threadsafe(after_refresh, lambda: runtime.call_soon(callback))

        try:
            connection = await runtime.run(self._open(after_app_refresh))
        except BaseException:
            runtime.stop()
            raise
        return on_thread(connection, runtime)

    async def _open(self, after_refresh: Callable[[Callable[[], object]], object]) -> AgentConnection:
        await asyncio.to_thread(importlib.import_module, "prime_jupyter.connection.in_process")
        from prime_jupyter.connection.in_process import InProcessAgentConnection

        from .connect import open_local

        connection = await open_local(self._ns, self._cwd)
        if not isinstance(connection, InProcessAgentConnection):
            return connection
        return cast("AgentConnection", _AfterImport(connection, after_refresh))


class _AfterImport:
    """The in-process connection, importing its provider SDK in a thread once the chat has drawn the
    session (its first `get_state()`, then the next refresh), so that the import does not share the GIL
    with that drawing. Calls that reach the provider wait for the import (off the loop); every other
    attribute is the connection's own."""

    def __init__(
        self, connection: InProcessAgentConnection, after_refresh: Callable[[Callable[[], object]], object] | None
    ) -> None:
        self._connection = connection
        self._after_refresh = after_refresh
        self._imported: asyncio.Future[None] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)

    def _import_sdk(self) -> asyncio.Future[None]:
        if self._imported is None:
            from prime_jupyter import gc_policy

            def load() -> None:
                with gc_policy.bulk_load():
                    self._connection.import_provider_sdk()
                gc_policy.modules_loaded()

            self._imported = asyncio.get_running_loop().run_in_executor(None, load)
        return self._imported

    def _start_import(self) -> None:
        self._import_sdk()

    async def get_state(self) -> ConnectionState:
        state = await self._connection.get_state()
        if self._imported is None:
            if self._after_refresh is not None:
                self._after_refresh(self._start_import)  # not the future: Textual would await it
            else:
                self._start_import()
        return state

    async def _sdk(self) -> None:
        with contextlib.suppress(Exception):  # an SDK that cannot be imported fails the turn, with its error
            await asyncio.shield(self._import_sdk())

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


def run_app(
    connect: Connector,
    cwd: Path,
    words: Sequence[str] = (),
    attached: bool = False,
    started: Callable[[App[None]], None] | None = None,
) -> int:
    """Run the app until the user quits; the words given on the command line are its first prompt.
    `started` is given the app before it runs."""
    prompt = " ".join(words).strip() or None
    return asyncio.run(_run(connect, cwd, prompt, attached, started))


def _theme() -> tuple[Path, str | None]:
    """The settings file the theme is kept in, and the theme chosen there last (None: the default)."""
    from prime_jupyter.connection.preferences import read_preference, settings_path
    from prime_jupyter.errors import ConfigError

    path = settings_path()
    try:
        theme = read_preference(path, "theme")
    except ConfigError as exc:  # the session will say so too, when it reads its settings
        print(f"warning: {exc}", file=sys.stderr)
        return path, None
    return path, theme if isinstance(theme, str) else None


async def _run(
    connect: Connector, cwd: Path, prompt: str | None, attached: bool, started: Callable[[App[None]], None] | None
) -> int:
    from .app import PrimeApp  # Textual: about half a second, imported only when the app runs
    from .images import inline_images

    images = inline_images()  # before the app takes the terminal: it may ask the terminal what it draws
    settings, theme = _theme()
    app = PrimeApp(
        connect,
        cwd_label=cwd_label(cwd),
        initial_prompt=prompt,
        attached=attached,
        boot=True,
        inline_images=images,
        theme=theme,
        settings_file=settings,
    )
    if started is not None:
        started(app)
    try:
        await app.run_async()
    finally:
        if app.connection is not None:
            await app.connection.dispose()
    if app.failure is not None:
        print(f"error: {app.failure}", file=sys.stderr)
        return 1
    return 0
