"""`jupyter prime attach`: run a prompt in a session of a running Jupyter server (design.md D6).

Headless for now, like `jupyter prime -p`: print the answer, or every event as a JSON line with
`--mode json`, through one `POST connection/run` (`connection.remote_run`). The server is `--url` or
`--sock` with `--token`, else the newest running server (from Jupyter's runtime directory) whose root
directory holds this directory. `--session` (any unique part of an id, or a name) continues a session;
without it a new one starts here. The session lives in the server: when this client goes away, the run
goes on.

The print path imports the standard library and `remote_run` only (no pydantic, no httpx, no
asyncio): it has about 75 ms from launch to the model's first request. Events are printed as the
server encoded them (the JSON text `jupyter prime --mode json` prints in process); only `agent_end` and
`auto_retry_start` are parsed. A server without the `run` route (an older prime-jupyter) is driven
through an `HttpAgentConnection` instead, as before.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from prime_jupyter.connection import ServerTarget
from prime_jupyter.errors import PrimeError

from .args import PERMISSION_MODE_CHOICES, wants_app

if TYPE_CHECKING:
    from prime_jupyter.ai.types import ImageContent
    from prime_jupyter.connection.remote_run import RemoteRun

__all__ = ["build_attach_parser", "main"]

# as `headless.py` has them (imported from there only on the long way: it imports pydantic)
_EXIT_READER_GONE = 141
_EXIT_INTERRUPTED = 130
_INTERRUPTED = "interrupted (Ctrl+C): the run was stopped"


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, its width found as `shutil.get_terminal_size` finds it: argparse imports
    `shutil` (and with it `bz2` and `lzma`) for that at every `add_argument`, 1.5 ms of `attach -p`."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


def _columns() -> int:
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 0
        except (ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def build_attach_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jupyter prime attach",
        description="Run a prompt in a session of a running Jupyter server (the session outlives this command).",
        epilog="Examples:\n  jupyter prime attach -p 'load data.csv and describe it'\n  "
        "jupyter prime attach --session 9c41e2d7 -p 'and now plot it'\n  "
        "jupyter prime attach --url http://127.0.0.1:8888/ --token T --mode json -p 'hi'",
        formatter_class=_Formatter,
    )
    parser.add_argument("messages", nargs="*", help="the prompt; @path arguments inline that file")
    parser.add_argument("-p", "--print", action="store_true", help="run the prompt, print the final answer, exit")
    parser.add_argument(
        "--mode",
        choices=("text", "json", "acp", "rpc"),
        default="text",
        help="json: one JSON line per event; acp: serve the Agent Client Protocol on stdio (for editors); "
        "rpc: JSON commands on stdin, answers and events on stdout (for programs)",
    )
    parser.add_argument("--session", metavar="SESSION", help="the session: any unique part of its id, or its name")
    parser.add_argument("--model", help="provider/id[:thinking] for the session")
    parser.add_argument("--cwd", help="working directory of a new session, on the server")
    parser.add_argument(
        "--permission-mode",
        choices=PERMISSION_MODE_CHOICES,
        help="the session's permission mode (ask, accept-edits, plan, auto); a new session's default: the "
        "server's, or auto with -p (nobody answers approvals there; the panel can answer an existing session's)",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--url", help="the server's URL, e.g. http://127.0.0.1:8888/")
    where.add_argument("--sock", metavar="PATH", help="the server's Unix socket (--ServerApp.sock)")
    parser.add_argument("--token", default=os.environ.get("JUPYTER_TOKEN"), help="the server's token")
    return parser


def main(argv: list[str]) -> int:
    args = build_attach_parser().parse_args(argv)
    if args.mode == "acp":  # an editor drives sessions of the server over the Agent Client Protocol
        from .acp import serve, server_target

        _gc_start_up()
        return serve(server_target(_target(args, Path(os.getcwd()))), can_list=False)
    if args.mode == "rpc":  # a program drives a session of the server with JSON lines on stdio
        from . import rpc

        _gc_start_up()
        return rpc.serve(_target(args, Path(os.getcwd())))
    if wants_app(args.print, args.mode):  # a terminal and no -p: the interactive app, attached
        from .tui.launch import run_attached

        _gc_start_up()
        return run_attached(args)
    from .prompt_input import read_prompt

    prompt = read_prompt(args.messages, "jupyter prime attach -p 'what is in this folder?'")
    if prompt is None:
        return 2
    target = _target(args, Path(os.getcwd()))
    try:
        code = _run_in_one_request(target, prompt.text, prompt.images, args.mode == "json")
    except KeyboardInterrupt:  # Ctrl+C before the run began: nothing ran
        print(f"error: {_INTERRUPTED}", file=sys.stderr)
        return _EXIT_INTERRUPTED
    if code is None:  # an older server: the long way
        return _run_connected(target, prompt.text, prompt.images, args.mode == "json")
    return code


def _run_in_one_request(target: ServerTarget, text: str, images: list[ImageContent], json_mode: bool) -> int | None:
    from prime_jupyter.connection.remote_run import start_run

    try:
        run = start_run(target, text, images)
    except PrimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if run is None:
        return None
    print(f"prime: session {run.session_id}", file=sys.stderr, flush=True)
    return _Printer(run, json_mode).follow()


class _Printer:
    """Prints one run's events as they arrive (JSON mode) or its answer at the end; Ctrl+C and a reader
    of stdout that goes away (`... | head`) abort the run, as `headless.run_headless` does."""

    def __init__(self, run: RemoteRun, json_mode: bool) -> None:
        self._run = run
        self._json = json_mode
        self._final: dict[str, object] | None = None
        self._interrupted = False
        self._gone = False

    def follow(self) -> int:
        previous = signal.signal(signal.SIGINT, self._on_sigint)
        try:
            if self._json:
                self._write([json.dumps(self._run.header, ensure_ascii=False, separators=(",", ":"))])
            for batch in self._run.batches():
                for text in batch:
                    self._read(text)
                if self._json:
                    self._write(batch)
        except PrimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        finally:
            signal.signal(signal.SIGINT, previous)
        return self._outcome()

    def _read(self, text: str) -> None:
        from prime_jupyter.connection.remote_run import event_type

        kind = event_type(text)
        if kind == "agent_end":
            messages = json.loads(text).get("messages") or []
            finals = [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]
            self._final = finals[-1] if finals else None
        elif kind == "auto_retry_start":
            from prime_jupyter.protocol.event_decoder import EventDecoder  # rare: pydantic is fine here

            from .headless import retry_line

            event = EventDecoder().decode(json.loads(text))
            print(f"prime: {retry_line(event)}", file=sys.stderr, flush=True)  # type: ignore[arg-type]

    def _write(self, lines: list[str]) -> None:
        if self._gone:
            return
        try:
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            self._gone = True
            _silence_stdout()
            self._abort()

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if not self._interrupted:
            print("prime: interrupted (Ctrl+C): stopping the run", file=sys.stderr, flush=True)
        self._interrupted = True
        self._abort()

    def _abort(self) -> None:
        try:
            self._run.abort()
        except PrimeError as exc:
            print(f"error: {exc}", file=sys.stderr, flush=True)

    def _outcome(self) -> int:
        """Print the answer or why there is none; the exit code (as `headless._outcome`)."""
        if self._gone:
            return _EXIT_READER_GONE
        if self._interrupted:
            print(f"error: {_INTERRUPTED}", file=sys.stderr)
            return _EXIT_INTERRUPTED
        final = self._final
        stop = final.get("stopReason") if final is not None else None
        if final is None or stop in ("error", "aborted"):
            reason = final.get("errorMessage") if final is not None else "the run produced no answer"
            print(f"error: {reason}", file=sys.stderr)
            return _EXIT_INTERRUPTED if stop == "aborted" else 1
        if not self._json:
            self._write([_well_formed(_text_of(final))])
            return _EXIT_READER_GONE if self._gone else 0
        return 0


def _text_of(message: dict[str, object]) -> str:
    """An assistant message's text blocks joined (`AssistantMessage.text`)."""
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    return "".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text")


def _well_formed(text: str) -> str:
    """`ai.json_text.well_formed`: surrogate pairs joined, lone surrogates replaced (stdout is UTF-8)."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _silence_stdout() -> None:
    """Point stdout at /dev/null (its reader has gone), as `headless.silence_stdout` does."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _run_connected(target: ServerTarget, text: str, images: list[ImageContent], json_mode: bool) -> int:
    """The long way, through an `HttpAgentConnection` (a server without the `run` route)."""
    import asyncio

    _gc_start_up()
    return asyncio.run(_connected(target, text, images, json_mode))


def _gc_start_up() -> None:
    """`gc_policy.start_up()`, as `jupyter prime` has it, for the paths that import the runtime's models.
    The one-request path allocates little and leaves the collector alone: importing `gc_policy`
    (`logging`) alone was 4 ms of its 75 ms launch budget."""
    from prime_jupyter import gc_policy

    gc_policy.start_up()


async def _connected(target: ServerTarget, text: str, images: list[ImageContent], json_mode: bool) -> int:
    from prime_jupyter.connection import open_connection

    from .headless import run_headless

    try:
        connection = await open_connection(target)
    except PrimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        state = await connection.get_state()
        print(f"prime: session {state.session_id}", file=sys.stderr)
        return await run_headless(connection, text, images, json_mode, say_session=False)
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
        permission_mode=args.permission_mode or ("auto" if args.print and args.session is None else None),
    )
