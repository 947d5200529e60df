"""`jupyter prime attach`: run a prompt in a session of a running Jupyter server (design.md D6).

Headless for now, like `jupyter prime -p`: print the answer, or every event as a JSON line with
`--mode json`, through an `HttpAgentConnection`. The server is `--url` or `--sock` with `--token`, else
the newest running server (from Jupyter's runtime directory) whose root directory holds this
directory. `--session` (any unique part of an id, or a name) continues a session; without it a new one
starts here. The session lives in the server: when this client goes away, the run goes on.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from prime_jupyter.ai.types import ImageContent
from prime_jupyter.connection import ServerTarget, open_connection
from prime_jupyter.errors import PrimeError

from .args import wants_app
from .headless import run_headless
from .prompt_input import read_prompt

__all__ = ["build_attach_parser", "main"]


def build_attach_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jupyter prime attach",
        description="Run a prompt in a session of a running Jupyter server (the session outlives this command).",
        epilog="Examples:\n  jupyter prime attach -p 'load data.csv and describe it'\n  "
        "jupyter prime attach --session 9c41e2d7 -p 'and now plot it'\n  "
        "jupyter prime attach --url http://127.0.0.1:8888/ --token T --mode json -p 'hi'",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("messages", nargs="*", help="the prompt; @path arguments inline that file")
    parser.add_argument("-p", "--print", action="store_true", help="run the prompt, print the final answer, exit")
    parser.add_argument("--mode", choices=("text", "json"), default="text", help="json: one JSON line per event")
    parser.add_argument("--session", metavar="SESSION", help="the session: any unique part of its id, or its name")
    parser.add_argument("--model", help="provider/id[:thinking] for the session")
    parser.add_argument("--cwd", help="working directory of a new session, on the server")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--url", help="the server's URL, e.g. http://127.0.0.1:8888/")
    where.add_argument("--sock", metavar="PATH", help="the server's Unix socket (--ServerApp.sock)")
    parser.add_argument("--token", default=os.environ.get("JUPYTER_TOKEN"), help="the server's token")
    return parser


def main(argv: list[str]) -> int:
    args = build_attach_parser().parse_args(argv)
    if wants_app(args.print, args.mode):  # a terminal and no -p: the interactive app, attached
        from .tui.launch import run_attached

        return run_attached(args)
    prompt = read_prompt(args.messages, "jupyter prime attach -p 'what is in this folder?'")
    if prompt is None:
        return 2
    cwd = Path(os.getcwd())
    code: int = asyncio.run(_run(args, prompt.text, prompt.images, cwd))
    return code


async def _run(args: argparse.Namespace, text: str, images: list[ImageContent], cwd: Path) -> int:
    try:
        connection = await open_connection(_target(args, cwd))
    except PrimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        state = await connection.get_state()
        print(f"prime: session {state.session_id}", file=sys.stderr)
        return await run_headless(connection, text, images, args.mode == "json", say_session=False)
    except PrimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        await connection.dispose()


def _target(args: argparse.Namespace, cwd: Path) -> ServerTarget:
    return ServerTarget(
        cwd=cwd,
        url=args.url,
        sock=args.sock,
        token=args.token,
        session=args.session,
        model=args.model,
        new_session_cwd=args.cwd,
    )
