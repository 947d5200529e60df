"""The scripted LLM server as a subprocess CLI (and a re-export of the in-process `ScriptedLLMServer`).

Usage::

    python -m prime_jupyter.testing.scripted_server --script script.json [--port 0] [--record r.jsonl]

prints `READY <base_url>` on one flushed stdout line once listening, then serves until SIGTERM/SIGINT
or until its stdin (when it is a pipe) reaches EOF. Each finished request is appended to the
record file as one JSON line (`RecordedRequest`, wall-clock stamps comparable across processes).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import stat
import sys
import threading
from pathlib import Path
from typing import IO

from prime_jupyter.testing.records import RecordedRequest
from prime_jupyter.testing.script import Script
from prime_jupyter.testing.server_core import ScriptedServerCore
from prime_jupyter.testing.server_thread import ScriptedLLMServer

__all__ = ["ScriptedLLMServer", "main"]


class _JsonlRecorder:
    """Appends each finished request as one JSON line, flushed, so other processes can tail it."""

    def __init__(self, path: Path) -> None:
        self._file: IO[str] = path.open("a", encoding="utf-8")

    def __call__(self, record: RecordedRequest) -> None:
        self._file.write(record.model_dump_json() + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def _stdin_is_pipe() -> bool:
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _serve(script: Script, host: str, port: int, record: Path | None) -> None:
    recorder = _JsonlRecorder(record) if record is not None else None
    core = ScriptedServerCore(script.turns, recorder)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if _stdin_is_pipe():

        def wait_for_eof() -> None:
            while sys.stdin.buffer.read(65536):
                pass
            loop.call_soon_threadsafe(stop.set)

        threading.Thread(target=wait_for_eof, name="scripted-server-stdin", daemon=True).start()
    base_url = await core.start(host, port)
    print(f"READY {base_url}", flush=True)
    try:
        await stop.wait()
    finally:
        await core.close()
        if recorder is not None:
            recorder.close()


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; see the module docstring."""
    parser = argparse.ArgumentParser(prog="python -m prime_jupyter.testing.scripted_server")
    parser.add_argument("--script", type=Path, help='JSON file {"turns": [...]} (default: no turns)')
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--record", type=Path, help="append each finished request here as JSONL")
    args = parser.parse_args(argv)
    script = Script.model_validate_json(args.script.read_bytes()) if args.script else Script()
    asyncio.run(_serve(script, args.host, args.port, args.record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
