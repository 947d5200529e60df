"""Interactive benchmark of the terminal app (`jupyter prime` on a TTY) against pi's interactive mode.

Both agents run in a real terminal, a 100x30 tmux pane watched in control mode (`_terminal.py`), against
the scripted provider behind the timing tap (as in `bench_agent.py`); every run is a fresh process in a
fresh agent dir, spawned through `_spawn.py` (spawn time and exact peak RSS). Three runs per agent and
repetition, the agents alternating:

- launch: spawn to the first paint (anything on screen) and to a usable editor (a key typed at the
  first paint appears on screen); then keys are typed for 3 s more (a key, then Backspace, each waited
  for), and their key-to-screen latency (p50 and max) shows whether the start-up's background work
  gets in the way of typing;
- stream: a prompt whose answer is 20,000 one-character deltas; from Enter until the footer shows the
  run's usage, keys are typed (as above, 30 ms apart) and each key-to-screen latency recorded (p50 and
  p99 per run); ours also runs with an event-loop lag probe (`_loop_probe.py`: a task on the app's loop
  that wakes every 5 ms) and reports the longest block of its loop in the same window; after the
  answer the app is quit and its peak RSS read;
- session: the app opened on a 10,000-entry session (ours `-r ID`, pi `-c`), spawn to the first paint
  of the session's last answer.

Figures are medians over the repetitions (min-max beside). Usage, from the repository root::

    nice -n 5 .venv/bin/python benchmarks/bench_tui.py [--reps 5] [--pi DIR] [--entry jupyter|script]

pi is found as in `bench_agent.py` (`--pi DIR` or `PI_DIR`); without it ours is measured alone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median, quantiles

from _agents import MODEL, PROVIDER, OurAgent, PiAgent, find_pi
from _cases import STREAM_DELTAS, answer_script, stream_script
from _child import TapServer
from _long_session import SessionText, make_session
from _report import Row, Target, render
from _terminal import TMUX, ControlTerminal, TerminalTimeout

_HERE = Path(__file__).resolve().parent
_SPAWN = _HERE / "_spawn.py"
_PROBE = _HERE / "_loop_probe.py"
_KEY = "Z"
"""The key typed to see the editor respond: on neither app's screen otherwise."""
_SESSION_ENTRIES = 10_000
_SESSION_MARKER = "the last answer of the long session"
_STARTUP_TYPING_S = 3.0
_KEY_GAP_S = 0.03
_STREAM_DONE = f"↓{STREAM_DELTAS // 1000}k"
"""Both footers show the output tokens (one per delta) once the run has ended: `↓20k`."""


@dataclass(frozen=True)
class Interactive:
    """How one agent is started on a terminal and what its screen says."""

    label: str
    agent: OurAgent | PiAgent
    entry: str = "jupyter"

    def argv(self, *, probe: Path | None = None, resume: str | None = None) -> list[str]:
        if isinstance(self.agent, PiAgent):
            return [str(self.agent.node), str(self.agent.cli), "--provider", PROVIDER, "--model", MODEL] + (
                ["-c"] if resume else []
            )
        bin_dir = Path(sys.executable).parent
        if probe is not None:
            head = [sys.executable, str(_PROBE), str(probe)]
        elif self.entry == "jupyter":
            head = [str(bin_dir / "jupyter"), "prime"]
        else:
            head = [str(bin_dir / "jupyter-prime")]
        return [*head, "--model", f"{PROVIDER}/{MODEL}", "--tools", "bash,read,write,edit"] + (
            ["-r", resume] if resume else []
        )

    def env(self, home: Path) -> dict[str, str]:
        full = self.agent.env(home)
        keep = {"TERM": "xterm-256color", "HOME": full.get("HOME", str(Path.home()))}
        if isinstance(self.agent, PiAgent):
            return {**keep, **{k: v for k, v in full.items() if k.startswith("PI_")}}
        return {**keep, "PRIME_AGENT_DIR": str(home), "PYTHONPATH": full.get("PYTHONPATH", "")}

    @property
    def quit_keys(self) -> tuple[str, ...]:
        return ("C-d",) if isinstance(self.agent, PiAgent) else ("C-q",)


@dataclass
class Figures:
    values: dict[str, dict[str, list[float]]] = field(default_factory=dict)

    def add(self, figure: str, agent: str, *values: float) -> None:
        self.values.setdefault(figure, {}).setdefault(agent, []).extend(values)

    def get(self, figure: str, agent: str) -> list[float]:
        return self.values.get(figure, {}).get(agent, [])


def _percentile(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return quantiles(values, n=100, method="inclusive")[q - 1]


class Run:
    """One agent process in one terminal, against one script; `finish()` quits it and reads its peak RSS."""

    def __init__(self, bench: Bench, who: Interactive, case: str, script: Path, **argv: object) -> None:
        self.root = bench.scratch / who.label / case
        shutil.rmtree(self.root, ignore_errors=True)
        self.home, self.work = self.root / "home", (self.root / "work").resolve()
        self.work.mkdir(parents=True)
        self.who = who
        self.server = TapServer(script, self.root)
        who.agent.configure(self.home, self.server.base_url)
        self.report = self.root / "spawn.json"
        self.probe = self.root / "probe.json" if argv.get("probe") else None
        resume = argv.get("resume")
        if isinstance(resume, SessionText):
            path = who.agent.session_file(self.home, self.work, resume.session_id, resume.timestamp)
            resume.write(path, str(self.work))
        self.term = ControlTerminal(f"bench-tui-{os.getpid()}-{who.label}-{case}")
        argv_ = who.argv(probe=self.probe, resume=resume.session_id if isinstance(resume, SessionText) else None)
        spawn = [sys.executable, "-I", "-S", str(_SPAWN), str(self.report), *argv_]
        self.released = self.term.start(spawn, self.work, who.env(self.home))

    def finish(self) -> tuple[float, float]:
        """Quit the app; its spawn time and peak RSS in MB (NaN if it did not exit by itself)."""
        try:
            self.term.keys(*self.who.quit_keys)
            closed = self.term.wait_closed(30)
        finally:
            self.term.close()
            self.server.stop()
        if not closed or not self.report.exists():
            return self.released, float("nan")
        done = json.loads(self.report.read_text())
        return float(done["spawned_at"]), done["peak_rss_kb"] / 1024.0

    def type_keys(self, until: float | None, stop: str | None = None) -> list[float]:
        """Type the key then Backspace, each waited for on screen, until `until` (a `time.time()`) or
        until the screen shows `stop`; the key-to-screen latency of each, in ms."""
        latencies: list[float] = []
        shown = 0
        while True:
            shown = 1 - shown
            sent = time.time()
            self.term.keys(_KEY if shown else "BSpace")
            stamp, screen = self.term.wait(lambda s, n=shown: s.count(_KEY) == n, "the typed key on screen", 30)
            latencies.append((stamp - sent) * 1000)
            if not shown and ((until is not None and stamp >= until) or (stop is not None and stop in screen)):
                return latencies
            time.sleep(_KEY_GAP_S)


class Bench:
    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.figures = Figures()
        self.session = make_session(_SESSION_ENTRIES, PROVIDER, MODEL)
        _mark_last_answer(self.session)
        self.scripts: dict[str, Path] = {}
        for name, script in (("answer", answer_script()), ("stream", stream_script())):
            self.scripts[name] = scratch / f"{name}.json"
            self.scripts[name].write_text(script.model_dump_json())

    def launch(self, who: Interactive) -> None:
        run = Run(self, who, "launch", self.scripts["answer"])
        try:
            painted, _ = run.term.wait(lambda s: s.strip() != "", "a first paint")
            run.term.keys(_KEY)
            usable, _ = run.term.wait(lambda s: _KEY in s, "the key typed at the first paint")
            run.term.keys("BSpace")
            run.term.wait(lambda s: _KEY not in s, "the key deleted")
            typing = run.type_keys(until=time.time() + _STARTUP_TYPING_S)
        finally:
            spawned, _ = run.finish()
        self.figures.add("paint", who.label, (painted - spawned) * 1000)
        self.figures.add("usable", who.label, (usable - spawned) * 1000)
        self.figures.add("startup-keys-p50", who.label, median(typing))
        self.figures.add("startup-keys-max", who.label, max(typing))
        print(
            f"    launch  {who.label:<5} first paint {(painted - spawned) * 1000:.0f} ms, usable "
            f"{(usable - spawned) * 1000:.0f} ms; then {len(typing)} keys, p50 {median(typing):.1f} ms, "
            f"max {max(typing):.1f} ms",
            flush=True,
        )

    def stream(self, who: Interactive) -> None:
        run = Run(self, who, "stream", self.scripts["stream"], probe=who.label == "ours")
        try:
            run.term.wait(lambda s: s.strip() != "", "a first paint")
            run.term.keys(_KEY)  # the app is ready for a prompt once the editor takes keys
            run.term.wait(lambda s: _KEY in s, "the editor")
            run.term.keys("BSpace")
            run.term.wait(lambda s: _KEY not in s, "the key deleted")
            run.term.keys("Write the long answer.")
            run.term.wait(lambda s: "long answer." in s, "the prompt in the editor")
            sent = time.time()
            run.term.keys("Enter")
            keys = run.type_keys(until=None, stop=_STREAM_DONE)
            ended, _ = run.term.wait(lambda s: _STREAM_DONE in s, "the end of the answer")
        finally:
            _, rss = run.finish()
        p50, p99 = _percentile(keys, 50), _percentile(keys, 99)
        self.figures.add("stream-keys-p50", who.label, p50)
        self.figures.add("stream-keys-p99", who.label, p99)
        self.figures.add("stream-s", who.label, ended - sent)
        self.figures.add("rss", who.label, rss)
        note = f"    stream  {who.label:<5} {ended - sent:.2f} s, {len(keys)} keys p50 {p50:.1f} p99 {p99:.1f} ms"
        if run.probe is not None and run.probe.exists():
            probe = json.loads(run.probe.read_text())
            blocks = [late * 1000 for at, late in probe["late"] if sent <= at <= ended + 0.1]
            block = max(blocks, default=0.0)
            self.figures.add("block", who.label, block)
            note += f", longest loop block {block:.0f} ms"
        print(f"{note}, peak RSS {rss:.0f} MB", flush=True)

    def resume(self, who: Interactive) -> None:
        run = Run(self, who, "session", self.scripts["answer"], resume=self.session)
        try:
            shown, _ = run.term.wait(lambda s: _SESSION_MARKER in s, "the session's last answer", 120)
        finally:
            spawned, _ = run.finish()
        self.figures.add("session", who.label, (shown - spawned) * 1000)
        print(f"    session {who.label:<5} last answer shown {(shown - spawned) * 1000:.0f} ms", flush=True)


def _mark_last_answer(session: SessionText) -> None:
    """The session ends on an answer whose text is `_SESSION_MARKER`: short, so it shows on one line."""
    last = json.loads(session.lines[-1])
    last["message"]["content"] = [{"type": "text", "text": _SESSION_MARKER}]
    session.lines[-1] = json.dumps(last, separators=(",", ":"))


_TABLE: list[tuple[str, str, str, int, Target | None]] = [
    ("paint", "launch -> first paint", "ms", 0, None),
    ("usable", "launch -> usable editor (typed key shown)", "ms", 0, Target("ratio_max", 1.0)),
    ("startup-keys-p50", f"key -> screen, {_STARTUP_TYPING_S:g} s after usable, p50", "ms", 1, None),
    ("startup-keys-max", f"key -> screen, {_STARTUP_TYPING_S:g} s after usable, max", "ms", 1, None),
    ("block", f"longest loop block, {STREAM_DELTAS:,}-delta answer", "ms", 0, Target("abs_max", 50)),
    ("stream-keys-p50", "key -> screen while streaming, p50", "ms", 1, None),
    ("stream-keys-p99", "key -> screen while streaming, p99", "ms", 1, Target("abs_max", 50)),
    ("stream-s", "prompt -> answer done", "s", 2, None),
    ("session", f"{_SESSION_ENTRIES:,}-entry session -> last answer shown", "ms", 0, Target("abs_max", 1000)),
    ("rss", f"peak RSS after the {STREAM_DELTAS:,}-delta answer", "MB", 0, Target("ratio_max", 1.0)),
]


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5, help="repetitions of every run (default 5)")
    parser.add_argument("--pi", type=Path, default=os.environ.get("PI_DIR"), help="folder pi is installed in")
    parser.add_argument(
        "--entry", choices=("jupyter", "script"), default="jupyter", help="jupyter prime or jupyter-prime"
    )
    parser.add_argument(
        "--cases", default="launch,stream,session", help="comma-separated: launch, stream, session (default all)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder and print its path")
    return parser.parse_args()


def main() -> int:
    args = _parse_args()
    if TMUX is None:
        print("tmux is not installed: nothing to measure", file=sys.stderr)
        return 2
    from bench_agent import _compile_sources

    _compile_sources()
    pi, why = find_pi(args.pi)
    agents = [Interactive("ours", OurAgent(), entry=args.entry)]
    if pi is not None:
        agents.append(Interactive("pi", pi))
    print(f"pi {pi.version} ({pi.node})" if pi is not None else f"pi not found: {why}; measuring ours alone")
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    scratch = Path(tempfile.mkdtemp(prefix="bench-tui-"))
    try:
        bench = Bench(scratch)
        steps = {"launch": bench.launch, "stream": bench.stream, "session": bench.resume}
        print("warming up", flush=True)
        for who in agents:
            bench.launch(who)
        bench.figures = Figures()
        for rep in range(args.reps):
            print(f"repetition {rep + 1}/{args.reps}", flush=True)
            for case in cases:
                for who in agents if rep % 2 == 0 else agents[::-1]:
                    try:
                        steps[case](who)
                    except TerminalTimeout as exc:
                        print(f"    {case:<7} {who.label:<5} FAILED: {exc}", flush=True)
        rows = [
            Row(title, unit, decimals, target, bench.figures.get(key, "ours"), bench.figures.get(key, "pi"))
            for key, title, unit, decimals, target in _TABLE
        ]
        print()
        print(render(rows, pi is not None))
    finally:
        if args.keep:
            print(f"scratch kept at {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
