"""`jupyter prime sessions`: the saved sessions (of this folder, or `--all`), to choose one for `-r`.

Text: one line per session, newest first: id, age, name, first prompt (and folder, with `--all`).
`--json`: one JSON array of the session summaries the panel lists too (`protocol.common.SessionSummary`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

__all__ = ["build_sessions_parser", "main"]


def build_sessions_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jupyter prime sessions",
        description="List saved sessions, newest first; resume one with jupyter prime -r <part of its id or its name>.",
    )
    parser.add_argument("--all", action="store_true", help="every folder's sessions, not only this folder's")
    parser.add_argument("--json", action="store_true", help="print a JSON array of session summaries")
    return parser


def main(argv: list[str]) -> int:
    args = build_sessions_parser().parse_args(argv)
    from prime_jupyter.connection.in_process import saved_sessions

    cwd = Path(os.getcwd())
    sessions = saved_sessions(None if args.all else cwd).sessions
    if args.json:
        print(json.dumps([s.model_dump(mode="json", by_alias=True) for s in sessions], ensure_ascii=False))
        return 0
    if not sessions:
        where = "" if args.all else f" started in {cwd} (jupyter prime sessions --all lists every folder's)"
        print(f"prime: no saved sessions{where}", file=sys.stderr)
        return 0
    now_ms = time.time() * 1000
    for s in sessions:
        name = f'  "{_one_line(s.name, 30)}"' if s.name else ""
        prompt = _one_line(s.first_message, 60) if s.first_message else "(no prompt)"
        folder = f"  in {s.cwd}" if args.all else ""
        print(f"{s.session_id}  {_age(now_ms - s.updated_at):>11}{name}  {prompt}{folder}")
    print("prime: resume one with: jupyter prime -r <any unique part of its id, or its name>", file=sys.stderr)
    return 0


def _age(ms: float) -> str:
    """As `sessions.rows.age` says it (the command line does not import the sessions package)."""
    seconds = max(0.0, ms / 1000)
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {'day' if unit == 'days' and count == 1 else unit} ago"
    return "just now"


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
