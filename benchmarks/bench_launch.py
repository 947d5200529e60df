"""Where `jupyter prime -p` spends its launch, up to the provider call (the part the provider layer does not own).

`bench_agent.py` measures launch -> first request end to end; this one splits the part before the
provider's turn begins, so that a change to the launch can be seen apart from the provider's SDK or
HTTP stack. Every run is `_launch_probe.py` (the command itself, stopped when the agent loop calls
`stream()`) in a fresh agent dir, with `--model fake/fake-model --tools bash,read,write,edit --mode json -p
hi` as `bench_agent.py` runs it; `resume` continues (`-c`) a synthetic 22,000-entry session.

Figures (median and min-max over the repetitions; wall clock, and the child's CPU time, which other
load on the machine disturbs less):

- interpreter: spawn to the probe's first line (Python's own start-up and `site`);
- to session built: from there to `open_connection` returning (arguments, prompt, every import of the
  runtime, settings, models.json, the transcript opened or created, tools, system prompt);
- to provider call: from there to `stream()` (the JSON header, the prompt's events and transcript
  entry, the request's context and tool schemas);
- imports before the provider call, by group (`python -X importtime`, once, self times summed: the
  profiler's overhead makes them larger than in a plain run);
- the `jupyter` launcher: `jupyter prime --version` minus `jupyter-prime --version`.

Usage, from the repository root::

    .venv/bin/python benchmarks/bench_launch.py [--reps 10] [--cases fresh,resume] [--entries 22000]

Nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from _long_session import make_session

_PROBE = Path(__file__).with_name("_launch_probe.py")
_ARGS = ["--model", "fake/fake-model", "--tools", "bash,read,write,edit", "--mode", "json"]
_GROUPS = (
    ("pydantic", ("pydantic", "pydantic_core", "annotated_types", "typing_inspection", "typing_extensions")),
    ("ours: ai", ("prime_jupyter.ai",)),
    ("ours: protocol", ("prime_jupyter.protocol",)),
    ("ours: sessions", ("prime_jupyter.sessions",)),
    ("ours: runtime, agent, tools", ("prime_jupyter.runtime", "prime_jupyter.agent", "prime_jupyter.tools")),
    ("ours: connection, cli, other", ("prime_jupyter", "cli")),
)


def _agent_dir(home: Path) -> None:
    """An agent dir whose one model is on a port nobody listens on (the probe never connects)."""
    home.mkdir(parents=True, exist_ok=True)
    model = {"id": "fake-model", "contextWindow": 1_000_000, "maxTokens": 8192}
    provider = {"baseUrl": "http://127.0.0.1:9", "api": "anthropic-messages", "apiKey": "x", "models": [model]}
    (home / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    (home / "settings.json").write_text(json.dumps({"compaction": {"enabled": False}}))


class Case:
    """One kind of launch: a fresh session, or `-c` of a long one (copied back before every run)."""

    def __init__(self, scratch: Path, name: str, entries: int) -> None:
        self.name, self.home, self.work = name, scratch / name / "home", scratch / name / "work"
        _agent_dir(self.home)
        self.work.mkdir(parents=True)
        self.session: tuple[Path, Path] | None = None
        if name == "resume":
            text = make_session(entries, "fake", "fake-model")
            pristine, live = scratch / "pristine.jsonl", self.home / "sessions" / f"{text.session_id}.jsonl"
            live.parent.mkdir(parents=True)
            text.write(pristine, str(self.work.resolve()))
            self.session = pristine, live

    def argv(self, *python_options: str) -> list[str]:
        out = str(self.home.parent / "probe.json")
        cont = ["-c"] if self.session is not None else []
        return [sys.executable, *python_options, str(_PROBE), out, *_ARGS, *cont, "-p", "hi"]

    def run(self, *python_options: str) -> tuple[dict[str, float], float, str]:
        """Phase times (ms), the child's CPU time (ms) and its stderr."""
        if self.session is not None:
            shutil.copyfile(*self.session)
        env = {**os.environ, "PRIME_AGENT_DIR": str(self.home)}
        spawned = time.time()
        child = subprocess.Popen(
            self.argv(*python_options), cwd=self.work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        assert child.stderr is not None
        stderr = child.stderr.read().decode(errors="replace")
        _, _, usage = os.wait4(child.pid, 0)
        report = json.loads((self.home.parent / "probe.json").read_text())
        marks = report["marks"]
        phases = {
            "interpreter": report["started"] - spawned,
            "to session built": marks["session_built"] - report["started"],
            "to provider call": marks["provider_call"] - marks["session_built"],
            "total to provider call": marks["provider_call"] - spawned,
        }
        return {k: v * 1000 for k, v in phases.items()}, (usage.ru_utime + usage.ru_stime) * 1000, stderr


def _import_groups(case: Case) -> dict[str, float]:
    """Self import time (ms) by group, from one `-X importtime` run."""
    _, _, stderr = case.run("-X", "importtime")
    groups: dict[str, float] = {}
    for line in stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if match is None:
            continue
        name = match.group(2)
        group = next((g for g, roots in _GROUPS if any(name == r or name.startswith(r + ".") for r in roots)), None)
        key = group or "stdlib and the rest"
        groups[key] = groups.get(key, 0.0) + int(match.group(1)) / 1000
    return groups


def _launcher_ms(reps: int) -> float:
    """`jupyter prime --version` minus `jupyter-prime --version`, medians."""
    bin_dir = Path(sys.executable).parent

    def timed(argv: list[str]) -> float:
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
            times.append(time.perf_counter() - start)
        return median(times) * 1000

    through_jupyter = timed([str(bin_dir / "jupyter"), "prime", "--version"])
    return through_jupyter - timed([str(bin_dir / "jupyter-prime"), "--version"])


def _cell(values: list[float]) -> str:
    return f"{median(values):7.1f} ({min(values):.1f}-{max(values):.1f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=10, help="repetitions of every run (default 10)")
    parser.add_argument("--cases", default="fresh,resume", help="comma-separated: fresh, resume (default both)")
    parser.add_argument("--entries", type=int, default=22_000, help="entries of the resumed session")
    args = parser.parse_args()
    root = Path(__file__).resolve().parents[1]
    sources = [str(root / "prime_jupyter"), str(root / "cli")]  # bytecode, as an installed package has it
    subprocess.run([sys.executable, "-m", "compileall", "-q", *sources], check=True)
    scratch = Path(tempfile.mkdtemp(prefix="bench-launch-"))
    try:
        for name in [n.strip() for n in args.cases.split(",") if n.strip()]:
            case = Case(scratch, name, args.entries)
            case.run()  # warm the file system caches
            phases: dict[str, list[float]] = {}
            cpu: list[float] = []
            for _ in range(args.reps):
                times, cpu_ms, _ = case.run()
                for phase, ms in times.items():
                    phases.setdefault(phase, []).append(ms)
                cpu.append(cpu_ms)
            print(f"\n{name} ({args.reps} runs), ms: median (min-max)")
            for phase, values in phases.items():
                print(f"  {phase:<32} {_cell(values)}")
            print(f"  {'CPU time to provider call':<32} {_cell(cpu)}")
            print("  imports before the provider call (-X importtime, self ms):")
            for group, ms in sorted(_import_groups(case).items(), key=lambda item: -item[1]):
                print(f"    {group:<30} {ms:7.1f}")
        print(f"\nthe jupyter launcher (jupyter prime -> jupyter-prime): {_launcher_ms(args.reps):.1f} ms")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
