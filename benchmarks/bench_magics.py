"""What a `%%prime` turn costs beyond the model, next to the headless CLI's (`jupyter prime -p`), and how
often the cell's display updates while a long answer streams.

    .venv/bin/python benchmarks/bench_magics.py [--reps 9 | --quick]

Both surfaces talk to the same scripted provider through the timing tap (`_tap_server.py`, wire times
on the wall clock), with the same scripted turns, in the same run. `%%prime` runs in a real ipykernel
driven by jupyter_client (as a notebook front end drives it): `%load_ext prime_jupyter`, one warm-up
cell, then one cell per repetition; the CLI is a fresh `jupyter prime -p` process per repetition, with
the `ipython` tool as the notebook has it.

Figures (median and min-max over the repetitions):

- answer turn, beyond the model: one short answer. `%%prime`: `execute_request` sent to the cell's
  `status: idle`, minus the model's wire time (the request's first byte to the response's last); the
  same for `-p`: spawn to exit minus the model's wire time, and its two parts (launch to the request
  fully sent; response's last byte to exit). The first `%%prime` cell of a kernel (imports, session)
  is shown apart;
- per-turn gap in a task of five `ipython` calls (`x = k`): the next request's arrival minus the
  previous response's last byte, tool run included (the first gap is left out: the CLI starts its
  kernel there);
- streaming in a cell: display messages (`display_data` and `update_display_data`), how many and
  per second from the first to the last, for a 20,000-delta answer sent as fast as the server can
  (with deltas per second: request sent to the last display; `-p` text mode's for reference) and for
  a 400-delta answer at a model's pace (10 ms apart), where the cell's update rate bound shows.

Prints figures; asserts nothing. Nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

from _agents import MODEL, PROVIDER, OurAgent
from _cases import STREAM_DELTAS
from _child import ChildRun, TapServer, TapTimes, run_child
from jupyter_client.manager import KernelManager

from prime_jupyter.testing import Script, ScriptedTurn, Text, ToolCall

ROOT = Path(__file__).resolve().parents[1]
TOOL_CALLS = 5
PACED_DELTAS, PACED_DELAY_S = 400, 0.01
DISPLAYS = ("display_data", "update_display_data")


def _answer() -> list[ScriptedTurn]:
    return [ScriptedTurn(blocks=[Text(text="ok", chunks=1)])]


def _tool_task() -> list[ScriptedTurn]:
    calls = [ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": f"x = {k}"})]) for k in range(TOOL_CALLS)]
    return [*calls, ScriptedTurn(blocks=[Text(text="done", chunks=2)])]


def _stream() -> list[ScriptedTurn]:
    return [ScriptedTurn(blocks=[Text(text="x" * STREAM_DELTAS, chunks=STREAM_DELTAS)])]


def _paced() -> list[ScriptedTurn]:
    """A long answer at a model's pace: `PACED_DELTAS` deltas, `PACED_DELAY_S` apart."""
    return [ScriptedTurn(blocks=[Text(text="y" * PACED_DELTAS, chunks=PACED_DELTAS)], chunk_delay_s=PACED_DELAY_S)]


@dataclass
class Figures:
    values: dict[str, list[float]] = field(default_factory=dict)

    def add(self, key: str, *values: float) -> None:
        self.values.setdefault(key, []).extend(values)

    def cell(self, key: str, decimals: int) -> str:
        found = self.values.get(key, [])
        if not found:
            return "-"
        if len(found) == 1:
            return f"{found[0]:.{decimals}f}"
        return f"{median(found):.{decimals}f} ({min(found):.{decimals}f}-{max(found):.{decimals}f})"


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return {**env, "PRIME_AGENT_DIR": str(home), "PYTHONPATH": path}


def _agent_dir(home: Path, base_url: str) -> Path:
    OurAgent().configure(home, base_url)
    settings = {"compaction": {"enabled": False}, "retry": {"enabled": False}, "defaultModel": f"{PROVIDER}/{MODEL}"}
    (home / "settings.json").write_text(json.dumps(settings))
    return home


def _serve(scratch: Path, name: str, turns: list[ScriptedTurn]) -> TapServer:
    root = scratch / name
    root.mkdir(parents=True, exist_ok=True)
    script = root / "script.json"
    script.write_text(Script(turns=turns).model_dump_json())
    return TapServer(script, root)


@dataclass
class CellRun:
    """One cell as a front end saw it: when it was sent and went idle, and when each display arrived."""

    sent_at: float
    idle_at: float
    displays: list[float]
    errors: list[str]


class NotebookKernel:
    """A real ipykernel with the magics loaded, pointed at one agent dir."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel(cwd=str(cwd), env=env)
        self.client = self.manager.blocking_client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)
        loaded = self.run("%load_ext prime_jupyter")
        if loaded.errors:
            raise RuntimeError(f"%load_ext prime_jupyter failed: {loaded.errors}")

    def run(self, code: str, timeout: float = 300) -> CellRun:
        sent_at = time.time()
        msg_id = self.client.execute(code)
        displays: list[float] = []
        errors: list[str] = []
        while True:
            try:
                msg: dict[str, Any] = self.client.get_iopub_msg(timeout=timeout)
            except queue.Empty:
                raise RuntimeError(f"no answer from the kernel within {timeout} s") from None
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind in DISPLAYS:
                displays.append(time.time())
            elif kind == "error":
                errors.append(f"{content['ename']}: {content['evalue']}")
            elif kind == "stream" and content.get("name") == "stderr":
                errors.append(content["text"])
            elif kind == "status" and content["execution_state"] == "idle":
                return CellRun(sent_at, time.time(), displays, errors)

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


def _model_s(taps: TapTimes, index: int) -> float:
    end = taps.response_ends[index]
    return (end if end is not None else taps.ends[index]) - taps.starts[index]


def _gaps_ms(taps: TapTimes, first: int, count: int) -> list[float]:
    """Gaps between requests first..first+count-1, the first one (kernel start in the CLI) left out."""
    gaps = []
    for k in range(first + 1, first + count - 1):
        end = taps.response_ends[k]
        if end is not None:
            gaps.append((taps.ends[k + 1] - end) * 1000)
    return gaps


def _cli(prompt: str, text_mode: bool = True) -> list[str]:
    head = [str(Path(sys.executable).parent / "jupyter"), "prime", "--model", f"{PROVIDER}/{MODEL}"]
    return [*head, "--tools", "ipython", *([] if text_mode else ["--mode", "json"]), "-p", prompt]


class Bench:
    def __init__(self, scratch: Path, reps: int) -> None:
        self.scratch, self.reps = scratch, reps
        self.figures = Figures()

    def magics(self) -> None:
        turns = _answer() * (self.reps + 1) + _tool_task() * self.reps + _stream() + _paced()
        server = _serve(self.scratch, "magics", turns)
        home = _agent_dir(self.scratch / "magics" / "home", server.base_url)
        work = self.scratch / "magics" / "work"
        work.mkdir()
        kernel = NotebookKernel(work, _env(home))
        try:
            cells = [self._cell(kernel, "%%prime\nhi") for _ in range(self.reps + 1)]
            tools = [self._cell(kernel, "%%prime\nset x five times") for _ in range(self.reps)]
            stream = self._cell(kernel, "%%prime\nwrite the long answer")
            paced = self._cell(kernel, "%%prime\nwrite it again, slowly")
        finally:
            kernel.close()
            taps = server.stop()
        if len(taps.ends) != len(turns):
            raise RuntimeError(f"{len(taps.ends)} requests for {len(turns)} turns: {taps.outcomes}")
        for i, cell in enumerate(cells):
            beyond = (cell.idle_at - cell.sent_at - _model_s(taps, i)) * 1000
            self.figures.add("magic-first" if i == 0 else "magic-answer", beyond)
            if i:
                self.figures.add("magic-before", (taps.starts[i] - cell.sent_at) * 1000)
                self.figures.add("magic-after", (cell.idle_at - (taps.response_ends[i] or taps.ends[i])) * 1000)
        base = len(cells)
        for r in range(len(tools)):
            self.figures.add("magic-gap", *_gaps_ms(taps, base + r * (TOOL_CALLS + 1), TOOL_CALLS + 1))
        self._displays("stream", stream, taps.ends[-2], STREAM_DELTAS)
        self._displays("paced", paced, taps.ends[-1], PACED_DELTAS)
        print(f"    %%prime: {len(cells)} answer cells, {len(tools)} tool cells, two streamed answers")

    def _displays(self, name: str, cell: CellRun, request_end: float, deltas: int) -> None:
        shown = cell.displays
        if len(shown) > 1:
            self.figures.add(f"magic-{name}-updates", float(len(shown)))
            self.figures.add(f"magic-{name}-rate", (len(shown) - 1) / (shown[-1] - shown[0]))
            self.figures.add(f"magic-{name}-deltas", deltas / (shown[-1] - request_end))

    def _cell(self, kernel: NotebookKernel, code: str) -> CellRun:
        cell = kernel.run(code)
        if cell.errors:
            raise RuntimeError(f"the cell failed: {cell.errors}")
        return cell

    def cli(self) -> None:
        for rep in range(self.reps):
            answer = self._cli_run(f"answer-{rep}", _answer(), "hi")
            if answer is not None:
                child, taps = answer
                wall = child.ended_at - child.spawned_at
                self.figures.add("cli-answer", (wall - _model_s(taps, 0)) * 1000)
                self.figures.add("cli-launch", (taps.ends[0] - child.spawned_at) * 1000)
                self.figures.add("cli-after", (child.ended_at - (taps.response_ends[0] or taps.ends[0])) * 1000)
            tools = self._cli_run(f"tools-{rep}", _tool_task(), "set x five times", text_mode=False)
            if tools is not None:
                self.figures.add("cli-gap", *_gaps_ms(tools[1], 0, TOOL_CALLS + 1))
        stream = self._cli_run("stream", _stream(), "write the long answer")
        if stream is not None:
            child, taps = stream
            self.figures.add("cli-deltas-rate", STREAM_DELTAS / (child.lines[-1][0] - taps.ends[0]))
        print(f"    jupyter prime -p: {self.reps} answer runs, {self.reps} tool runs, one stream")

    def _cli_run(
        self, name: str, turns: list[ScriptedTurn], prompt: str, text_mode: bool = True
    ) -> tuple[ChildRun, TapTimes] | None:
        server = _serve(self.scratch / "cli", name, turns)
        root = self.scratch / "cli" / name
        home, work = _agent_dir(root / "home", server.base_url), root / "work"
        work.mkdir()
        try:
            child = run_child(_cli(prompt, text_mode), work, _env(home), root / "stderr.txt")
        finally:
            taps = server.stop()
        if child.exit_code != 0 or len(taps.ends) != len(turns):
            print(f"    {name}: FAILED (exit {child.exit_code}, {len(taps.ends)} requests): {child.stderr[-400:]}")
            return None
        return child, taps


_ROWS: list[tuple[str, str, str, int]] = [
    ("answer turn beyond the model, %%prime cell", "magic-answer", "ms", 1),
    ("  of which: cell sent -> request's first byte", "magic-before", "ms", 1),
    ("  of which: response's last byte -> cell idle", "magic-after", "ms", 1),
    ("first %%prime cell of a kernel, beyond the model", "magic-first", "ms", 0),
    ("answer turn beyond the model, jupyter prime -p", "cli-answer", "ms", 0),
    ("  of which: launch -> request fully sent", "cli-launch", "ms", 0),
    ("  of which: response's last byte -> exit", "cli-after", "ms", 0),
    (f"per-turn gap, {TOOL_CALLS} ipython calls, %%prime", "magic-gap", "ms", 2),
    (f"per-turn gap, {TOOL_CALLS} ipython calls, jupyter prime -p", "cli-gap", "ms", 2),
    (f"{STREAM_DELTAS:,} deltas at once, %%prime: display messages", "magic-stream-updates", "", 0),
    ("  display updates per second", "magic-stream-rate", "1/s", 1),
    ("  deltas per second", "magic-stream-deltas", "1/s", 0),
    (f"{STREAM_DELTAS:,} deltas at once, jupyter prime -p (text): deltas per second", "cli-deltas-rate", "1/s", 0),
    (
        f"{PACED_DELTAS} deltas {PACED_DELAY_S * 1000:.0f} ms apart, %%prime: display messages",
        "magic-paced-updates",
        "",
        0,
    ),
    ("  display updates per second", "magic-paced-rate", "1/s", 1),
]


def render(figures: Figures) -> str:
    lines = [(title, unit, figures.cell(key, decimals)) for title, key, unit, decimals in _ROWS]
    width = max(len(title) for title, _, _ in lines)
    return "\n".join(f"{title.ljust(width)}  {value:>24}  {unit}".rstrip() for title, unit, value in lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=9, help="repetitions (cells, CLI runs) of each case (default 9)")
    parser.add_argument("--quick", action="store_true", help="two repetitions: a smoke check")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder and print its path")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-magics-"))
    bench = Bench(scratch, 2 if args.quick else args.reps)
    try:
        print(f"{bench.reps} repetitions; the notebook kernel first, then the CLI", flush=True)
        bench.magics()
        bench.cli()
        print()
        print(render(bench.figures))
    finally:
        if args.keep:
            print(f"scratch kept at {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
