"""When `jupyter prime` opens the terminal app, and how it runs it.

The app opens on a terminal only: no `-p`, no `--mode json`, standard input and output both TTYs.
Anything else keeps the print and JSON modes as they are. The app's connection is opened after its first
paint, and closed here once the app has exited, on the same event loop the session ran on: an in-process
session is disposed (its kernel shut down); an attached one only loses this client and keeps running.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
    from .connect import open_local

    cwd = Path(os.getcwd())
    words = ns.get("messages")
    return run_app(lambda: open_local(ns, cwd), cwd, words if isinstance(words, list) else ())


def run_attached(args: argparse.Namespace) -> int:
    """`jupyter prime attach` on a terminal: the app on a session of a running Jupyter server."""
    from .connect import open_attached

    cwd = Path(os.getcwd())
    return run_app(lambda: open_attached(args, cwd), cwd, args.messages, attached=True)


def run_app(connect: Connector, cwd: Path, words: Sequence[str] = (), attached: bool = False) -> int:
    """Run the app until the user quits; the words given on the command line are its first prompt."""
    prompt = " ".join(words).strip() or None
    return asyncio.run(_run(connect, cwd, prompt, attached))


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


async def _run(connect: Connector, cwd: Path, prompt: str | None, attached: bool) -> int:
    from .app import PrimeApp  # Textual: about half a second, imported only when the app runs
    from .images import inline_images

    images = inline_images()  # before the app takes the terminal: it may ask the terminal what it draws
    settings, theme = _theme()
    app = PrimeApp(
        connect,
        cwd_label=cwd_label(cwd),
        initial_prompt=prompt,
        attached=attached,
        inline_images=images,
        theme=theme,
        settings_file=settings,
    )
    try:
        await app.run_async()
    finally:
        if app.connection is not None:
            await app.connection.dispose()
    if app.failure is not None:
        print(f"error: {app.failure}", file=sys.stderr)
        return 1
    return 0
