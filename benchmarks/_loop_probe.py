"""`jupyter prime` with an event-loop lag probe beside it: the benchmark's probe, not the product's.

Usage: `python _loop_probe.py OUT.json [jupyter prime arguments...]`

Runs `prime_jupyter.cli.__main__.main(arguments)` exactly as the console script does, with one addition: the event
loop that `asyncio.run` starts (the app's, which also runs the in-process session) gets a task that
sleeps 5 ms at a time and records by how much each wake-up came late. A late wake-up is the loop being
blocked (a callback, a render, an import running on it). At exit, OUT.json holds the wall time and
lateness of each wake-up later than 1 ms, and how many wake-ups there were in all.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Coroutine
from typing import Any

_PERIOD = 0.005
_late: list[tuple[float, float]] = []
_wakeups = 0


async def _probe() -> None:
    global _wakeups
    while True:
        before = time.perf_counter()
        await asyncio.sleep(_PERIOD)
        late = time.perf_counter() - before - _PERIOD
        _wakeups += 1
        if late > 0.001:
            _late.append((time.time(), late))


_run = asyncio.run


def _run_with_probe(main: Coroutine[Any, Any, Any], **kwargs: Any) -> Any:
    async def probed() -> Any:
        probe = asyncio.ensure_future(_probe())
        try:
            return await main
        finally:
            probe.cancel()

    return _run(probed(), **kwargs)


def main() -> int:
    out, arguments = sys.argv[1], sys.argv[2:]
    asyncio.run = _run_with_probe  # the app's loop is the one `prime_jupyter.cli.tui.launch` starts with asyncio.run
    from prime_jupyter.cli.__main__ import main as prime_main

    try:
        return prime_main(arguments)
    finally:
        with open(out, "w") as f:
            json.dump({"wakeups": _wakeups, "late": _late}, f)


if __name__ == "__main__":
    raise SystemExit(main())
