"""Command-line arguments of `jupyter prime`."""

from __future__ import annotations

import argparse
import sys

from prime_jupyter._version import __version__

__all__ = ["build_parser", "wants_app"]


def wants_app(print_mode: bool, mode: str) -> bool:
    """True when `jupyter prime` should open the interactive app rather than print an answer: no `-p`, no
    `--mode json`, standard input and output both terminals. Decided here, before the app's launcher (and
    with it the terminal app's modules) is imported: a `-p` run never imports them."""
    if print_mode or mode != "text":
        return False
    return sys.stdin is not None and sys.stdin.isatty() and sys.stdout.isatty()


PERMISSION_MODE_CHOICES = ("ask", "accept-edits", "plan", "auto")
"""The runtime's permission modes (`prime_jupyter.runtime.permissions`, which the CLI may not import)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jupyter prime",
        description="Prime: a Jupyter-native AI agent. Give a prompt with -p to run one task and print the answer.",
        epilog="Examples:\n  jupyter prime -p 'summarise data.csv' @data.csv\n  "
        "git diff | jupyter prime -p 'review this diff' --tools read,bash\n  jupyter prime -c -p 'and now plot it'"
        "\n\nSaved sessions: jupyter prime sessions [--all] [--json]; resume one with -r"
        "\nIn a running Jupyter server: jupyter prime attach -p 'prompt' (see jupyter prime attach --help)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
    parser.add_argument("--model", help="provider/id[:thinking], e.g. anthropic/claude-sonnet-5-5:high")
    parser.add_argument(
        "--thinking", choices=("off", "minimal", "low", "medium", "high", "xhigh"), help="thinking level"
    )
    parser.add_argument("--tools", help="comma-separated tools: ipython (default), read, write, edit, bash")
    parser.add_argument(
        "--permission-mode",
        choices=PERMISSION_MODE_CHOICES,
        help="ask: code, commands and file changes ask first (the app's default); accept-edits: file changes go "
        "through; plan: only read-only tools; auto: nothing asks (the default of -p, where nobody can answer)",
    )
    parser.add_argument("--system-prompt", help="replace the base system prompt")
    parser.add_argument("--append-system-prompt", help="append text to the system prompt")
    parser.add_argument(
        "--no-context-files", "-nc", action="store_true", help="do not load AGENTS.md / CLAUDE.md files"
    )
    session = parser.add_mutually_exclusive_group()
    session.add_argument("-c", "--continue", dest="cont", action="store_true", help="continue the latest session here")
    session.add_argument(
        "-r",
        "--resume",
        metavar="SESSION",
        help="resume a session: any unique part of its id, its name, or its file (see jupyter prime sessions)",
    )
    session.add_argument("--no-session", action="store_true", help="keep the session in memory only")
    parser.add_argument(
        "--server",
        choices=("auto", "never"),
        help="auto: with -p, run a new session in a Jupyter server running for this folder when one is found "
        "(warm: no start-up here); never: always in this process (the default; setting headlessServer)",
    )
    parser.add_argument("--version", action="version", version=f"prime-jupyter {__version__}")
    return parser
