"""`jupyter prime sessions`: the saved sessions (of this folder, or `--all`), to choose one for `-r`.

Text: one line per session, newest first: id, age, name, first prompt (and folder, with `--all`).
`--json`: one JSON array of the session summaries the panel lists too (`protocol.common.SessionSummary`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
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
    from prime_jupyter.connection.in_process import saved_session_rows, saved_sessions

    cwd = None if args.all else Path(os.getcwd())
    if args.json:
        sessions = saved_sessions(cwd).sessions
        print(json.dumps([s.model_dump(mode="json", by_alias=True) for s in sessions], ensure_ascii=False))
        return 0
    rows = saved_session_rows(cwd)
    if not rows:
        where = "" if cwd is None else f" started in {cwd} (jupyter prime sessions --all lists every folder's)"
        print(f"prime: no saved sessions{where}", file=sys.stderr)
        return 0
    for row in rows:
        print(row)
    print("prime: resume one with: jupyter prime -r <any unique part of its id, or its name>", file=sys.stderr)
    return 0
