"""`jupyter prime attach`: run a prompt in a session of a running Jupyter server (design.md D6).

Headless for now, like `jupyter prime -p`: print the answer, or every event as a JSON line with
`--mode json`, through an `HttpAgentConnection`. The server is `--url` or `--sock` with `--token`, else
the newest running server (from Jupyter's runtime directory) whose root directory holds this
directory. `--session ID` (a unique id prefix will do) continues a session; without it a new one
starts here. The session lives in the server: when this client goes away, the run goes on.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from prime_jupyter.ai.types import ImageContent
from prime_jupyter.connection.http import HttpAgentConnection, ServerEndpoint, find_server
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.common import ModelRef

from .headless import run_headless
from .prompt_input import read_prompt

__all__ = ["build_attach_parser", "main"]

NO_SERVER = "no running Jupyter server found: start one with `jupyter lab` or pass --url/--token"


def build_attach_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jupyter prime attach",
        description="Run a prompt in a session of a running Jupyter server (the session outlives this command).",
        epilog="Examples:\n  jupyter prime attach -p 'load data.csv and describe it'\n  "
        "jupyter prime attach --session 0192ab -p 'and now plot it'\n  "
        "jupyter prime attach --url http://127.0.0.1:8888/ --token T --mode json -p 'hi'",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("messages", nargs="*", help="the prompt; @path arguments inline that file")
    parser.add_argument("-p", "--print", action="store_true", help="run the prompt, print the final answer, exit")
    parser.add_argument("--mode", choices=("text", "json"), default="text", help="json: one JSON line per event")
    parser.add_argument("--session", metavar="ID", help="the session to continue (id or unique prefix)")
    parser.add_argument("--model", help="provider/id[:thinking] for the session")
    parser.add_argument("--cwd", help="working directory of a new session, on the server")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--url", help="the server's URL, e.g. http://127.0.0.1:8888/")
    where.add_argument("--sock", metavar="PATH", help="the server's Unix socket (--ServerApp.sock)")
    parser.add_argument("--token", default=os.environ.get("JUPYTER_TOKEN"), help="the server's token")
    return parser


def main(argv: list[str]) -> int:
    args = build_attach_parser().parse_args(argv)
    from .tui.launch import wants_app

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
        connection = await _connect(args, cwd)
    except PrimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        print(f"prime: session {connection.session_id}", file=sys.stderr)
        return await run_headless(connection, text, images, args.mode == "json")
    except PrimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        await connection.dispose()


async def _connect(args: argparse.Namespace, cwd: Path) -> HttpAgentConnection:
    endpoint, here = _endpoint(args, cwd)
    model, thinking = _model(args.model)
    new_cwd = args.cwd or (str(cwd) if here else None)
    connection = await HttpAgentConnection.connect(
        endpoint, args.session, cwd=new_cwd, model=model, thinking_level=thinking
    )
    if args.session is not None and model is not None:
        await connection.set_model(model.provider, model.id)
    if args.session is not None and thinking is not None:
        await connection.set_thinking_level(thinking)
    return connection


def _endpoint(args: argparse.Namespace, cwd: Path) -> tuple[ServerEndpoint, bool]:
    """The server to attach to, and whether it was found serving this directory."""
    if args.url:
        return ServerEndpoint(args.url, args.token), False
    if args.sock:
        return ServerEndpoint.unix(args.sock, args.token), True
    found = find_server(cwd)
    if found is None:
        raise PrimeError(NO_SERVER)
    token = args.token or found.endpoint.token
    return ServerEndpoint(found.endpoint.url, token, found.endpoint.sock), True


def _model(value: str | None) -> tuple[ModelRef | None, str | None]:
    if value is None:
        return None, None
    from prime_jupyter.ai.registry import parse_model_ref  # about 0.1 s of imports: only when asked for

    ref = parse_model_ref(value)
    if not ref.provider:
        raise PrimeError(f"--model {value!r}: write provider/model-id, e.g. anthropic/claude-sonnet-5-5")
    return ModelRef(provider=ref.provider, id=ref.model_id), ref.thinking
