"""The library's share of a resume, in process: open a long transcript, build its context, encode a body.

    python benchmarks/bench_resume_library.py [--entries 22000] [--runs 5] [--collector on|paused|both]

Times `SessionManager.open` + `build_context()` + `encode_request` of an Anthropic body on a synthetic
session (`_long_session.py`), after one warm-up run, and prints the median and each phase. The
library never touches the garbage collector (issue 12); the hosts decide. `--collector paused` does
what a host's "bulk load" moment should: the collector off for the whole resume, then what it built
moved to the oldest generation without a scan (`gc.freeze()` + `gc.unfreeze()`); `on` leaves it
running, as a host without that moment would. `--dump FILE` writes the body, to compare two checkouts
byte for byte.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import statistics
import tempfile
import time
from pathlib import Path

from _long_session import make_session

from prime_jupyter.ai.models import Model
from prime_jupyter.ai.providers import anthropic
from prime_jupyter.ai.providers._request import encode_request
from prime_jupyter.ai.stream import StreamOptions
from prime_jupyter.ai.types import Context
from prime_jupyter.sessions.manager import SessionManager

MODEL = Model(id="bench-model", name="Bench", api="anthropic-messages", provider="anthropic", max_tokens=8192)


def _resume(path: Path, paused: bool) -> tuple[list[float], bytes]:
    """Milliseconds of each phase (open, context, body) and the body."""
    marks = [time.perf_counter()]
    if paused:
        gc.disable()
    try:
        manager = SessionManager.open(path)
        marks.append(time.perf_counter())
        context = manager.build_context()
        marks.append(time.perf_counter())
        body = encode_request(
            anthropic.build_request,
            MODEL,
            Context(system_prompt="s", messages=context.messages),
            StreamOptions(api_key="unused"),
        )
        marks.append(time.perf_counter())
    finally:
        if paused:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
    return [(b - a) * 1000 for a, b in itertools.pairwise(marks)], body


def _measure(path: Path, paused: bool, runs: int) -> tuple[list[float], list[float], bytes]:
    _resume(path, paused)  # warm-up: validators built, file in the page cache
    totals, phases, body = [], [], b""
    for _ in range(runs):
        gc.collect()
        phase, body = _resume(path, paused)
        totals.append(sum(phase))
        phases.append(phase)
    medians = [statistics.median(p[i] for p in phases) for i in range(3)]
    return totals, medians, body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=22_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--collector", choices=("on", "paused", "both"), default="both")
    parser.add_argument("--dump", type=Path, help="write the request body here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "session.jsonl"
        size = make_session(args.entries, "anthropic", MODEL.id).write(path, tmp)
        print(f"session: {args.entries:,} entries, {size / 1e6:.1f} MB; median of {args.runs} runs")
        for mode in ("on", "paused") if args.collector == "both" else (args.collector,):
            totals, (opened, context, body_ms), body = _measure(path, mode == "paused", args.runs)
            print(
                f"collector {mode:>6}: {statistics.median(totals):6.1f} ms  (open {opened:.1f}, context {context:.2f},"
                f" body {body_ms:.1f}; runs {', '.join(f'{t:.0f}' for t in totals)}; body {len(body) / 1e6:.1f} MB)"
            )
        if args.dump is not None:
            args.dump.write_bytes(body)


if __name__ == "__main__":
    main()
