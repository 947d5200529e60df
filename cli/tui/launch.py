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
  is imported in a thread before the session is opened;
- the session then runs on an event loop of its own, in a thread (`runtime_thread.py`), so that its
  provider stream does not hold the app's loop; the provider's own module is a few milliseconds since the
  providers stopped importing an SDK (`ai/providers/_client.py`), and is imported by the first turn.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..args import wants_app  # decided before this module is imported; named here too for its callers

if TYPE_CHECKING:
    from textual.app import App

    from prime_jupyter.connection.base import AgentConnection

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
    return run_app(start.open, cwd, words if isinstance(words, list) else ())


class LocalStart:
    """Opens the in-process session for the app: its runtime imported in a thread, then the session opened
    on a loop of its own (see the module's doc)."""

    def __init__(self, ns: dict[str, object], cwd: Path) -> None:
        self._ns = ns
        self._cwd = cwd

    async def open(self) -> AgentConnection:
        """The session, opened on a loop of its own (`runtime_thread.py`), as the app's loop uses it."""
        from .runtime_thread import RuntimeThread, on_thread

        runtime = RuntimeThread()
        try:
            connection = await runtime.run(self._open())
        except BaseException:
            runtime.stop()
            raise
        return on_thread(connection, runtime)

    async def _open(self) -> AgentConnection:
        await asyncio.to_thread(importlib.import_module, "prime_jupyter.connection.in_process")
        from .connect import open_local

        return await open_local(self._ns, self._cwd)


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
