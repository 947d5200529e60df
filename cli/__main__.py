"""`jupyter prime` (console script `jupyter-prime`).

Importing this module stays light: no jupyter_server, no provider SDK (a provider's SDK is imported when
it first streams), no kernel machinery unless the `ipython` tool is selected.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from .args import build_parser
from .prompt_input import PromptError, assemble_prompt

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    stdin_text = None if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    cwd = Path(os.getcwd())
    try:
        prompt = assemble_prompt(args.messages, stdin_text, cwd)
    except PromptError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not prompt.text.strip():
        parser.print_usage(sys.stderr)
        print("error: give a prompt, e.g. jupyter prime -p 'what is in this folder?'", file=sys.stderr)
        return 2
    code: int = asyncio.run(_run(args, prompt.text, list(prompt.images), cwd))
    return code


async def _run(args: object, text: str, images: list[object], cwd: Path) -> int:
    from prime_jupyter.errors import PrimeError
    from prime_jupyter.runtime.factory import SessionMode, SessionOptions, create_agent_session

    from .headless import run_headless

    ns = vars(args)
    mode: SessionMode = "new"
    if ns["resume"]:
        mode = "resume"
    elif ns["cont"]:
        mode = "continue"
    elif ns["no_session"]:
        mode = "none"
    options = SessionOptions(
        cwd=cwd,
        model=ns["model"],
        thinking=ns["thinking"],
        tools=[t.strip() for t in ns["tools"].split(",") if t.strip()] if ns["tools"] else None,
        system_prompt=ns["system_prompt"],
        append_system_prompt=ns["append_system_prompt"],
        context_files=not ns["no_context_files"],
        mode=mode,
        resume=ns["resume"],
    )
    try:
        session = create_agent_session(options)
    except PrimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        code: int = await run_headless(session, text, images, ns["mode"] == "json")
        return code
    except PrimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        await session.dispose()


if __name__ == "__main__":
    sys.exit(main())
