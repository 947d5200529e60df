"""`jupyter prime` (console script `jupyter-prime`).

Importing this module stays light: no pydantic, no jupyter_server, no provider SDK (a provider's SDK is
imported when it first streams), no kernel machinery unless the `ipython` tool is selected; `--help` and
`--version` answer before any of the runtime is imported.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .args import build_parser, wants_app

if TYPE_CHECKING:
    from prime_jupyter.ai.types import ImageContent
    from prime_jupyter.connection.door import ServerTarget, SessionMode
    from prime_jupyter.connection.in_process import LocalTarget

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["attach"]:  # `jupyter prime attach ...`: a session in a running Jupyter server
        from .attach import main as attach_main  # its own GC policy: `-p` imports only the standard library

        return attach_main(words[1:])
    from prime_jupyter import gc_policy

    gc_policy.start_up()  # collection comes back, start-up's objects frozen, once the first answer streams
    if words[:1] == ["sessions"]:  # `jupyter prime sessions [--all] [--json]`: the saved sessions
        from .sessions import main as sessions_main

        return sessions_main(words[1:])
    parser = build_parser()
    args = parser.parse_args(argv)  # --help and --version exit here, before any of what follows is imported
    if args.mode == "acp":  # an editor drives sessions over the Agent Client Protocol on stdio
        from .acp import local_target, serve

        return serve(local_target(_target(vars(args), Path(os.getcwd()))), can_list=True)
    if args.mode == "rpc":  # a program drives a session with JSON lines on stdio
        import dataclasses

        from . import rpc

        return rpc.serve(dataclasses.replace(_target(vars(args), Path(os.getcwd())), interactive=True))
    if wants_app(args.print, args.mode):  # a terminal and no -p: the interactive app
        from .tui.launch import run_local

        return run_local(vars(args))
    import asyncio

    from .prompt_input import read_prompt

    prompt = read_prompt(args.messages, "jupyter prime -p 'what is in this folder?'")
    if prompt is None:
        parser.print_usage(sys.stderr)
        return 2
    cwd = Path(os.getcwd())
    from .server_choice import server_target

    try:
        code: int = asyncio.run(_run(args, prompt.text, prompt.images, cwd, server_target(vars(args), cwd)))
    except KeyboardInterrupt:  # Ctrl+C before the run began (while the session opened): nothing ran
        from .headless import EXIT_INTERRUPTED, INTERRUPTED

        print(f"error: {INTERRUPTED}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


async def _run(
    args: object, text: str, images: list[ImageContent], cwd: Path, server: tuple[ServerTarget, str] | None
) -> int:
    from prime_jupyter.connection import open_connection
    from prime_jupyter.errors import PrimeError, SessionNotFoundError

    from .headless import run_headless

    try:
        connection = await open_connection(server[0] if server is not None else _target(vars(args), cwd))
    except SessionNotFoundError as exc:
        print(f"error: {exc}\nthe saved sessions: jupyter prime sessions --all", file=sys.stderr)
        return 1
    except PrimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        if server is not None:
            state = await connection.get_state()
            where = f"session {state.session_id} in the Jupyter server at {server[1]}"
            print(f"prime: {where} (--server never: run here)", file=sys.stderr)
        code: int = await run_headless(connection, text, images, vars(args)["mode"] == "json")
        return code
    except PrimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        await connection.dispose()


def _target(ns: dict[str, object], cwd: Path) -> LocalTarget:
    """The session the arguments name, to be run in this process."""
    from prime_jupyter.connection import LocalTarget

    mode: SessionMode = "new"
    if ns["resume"]:
        mode = "resume"
    elif ns["cont"]:
        mode = "continue"
    elif ns["no_session"]:
        mode = "none"
    tools = ns["tools"]
    return LocalTarget(
        cwd=cwd,
        model=_opt(ns["model"]),
        thinking=ns["thinking"],  # type: ignore[arg-type]
        tools=tuple(t.strip() for t in tools.split(",") if t.strip()) if isinstance(tools, str) else None,
        system_prompt=_opt(ns["system_prompt"]),
        append_system_prompt=_opt(ns["append_system_prompt"]),
        context_files=not ns["no_context_files"],
        mode=mode,
        resume=_opt(ns["resume"]),
        permission_mode=ns.get("permission_mode"),  # type: ignore[arg-type]
    )


def _opt(value: object) -> str | None:
    return value if isinstance(value, str) else None


if __name__ == "__main__":
    sys.exit(main())
