"""Launch -> first model request of `jupyter prime -p`, with five stdio MCP servers configured against none.

MCP servers start beside the session, not in front of it (issue 29: at most 1.1x). Every run is
`_launch_probe.py` (the command itself, stopped when the agent loop calls `stream()`) in a fresh agent dir
whose `mcp.json` is empty or names five copies of the tests' notes server (`tests/resources/mcp_servers/`),
runs alternating, the medians and min-max printed with their ratio.

Usage, from the repository root::

    .venv/bin/python benchmarks/bench_mcp.py [--reps 9]

Nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

_PROBE = Path(__file__).with_name("_launch_probe.py")
_SERVER = Path(__file__).resolve().parents[1] / "tests" / "resources" / "mcp_servers" / "notes_server.py"
_ARGS = ["--model", "fake/fake-model", "--tools", "bash,read", "--mode", "json", "-p", "hi"]
TARGET = 1.1


def _agent_dir(home: Path, servers: int) -> None:
    """An agent dir whose one model is on a port nobody listens on (the probe stops before it connects)."""
    home.mkdir(parents=True)
    model = {"id": "fake-model", "contextWindow": 1_000_000, "maxTokens": 8192}
    provider = {"baseUrl": "http://127.0.0.1:9", "api": "anthropic-messages", "apiKey": "x", "models": [model]}
    (home / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    (home / "settings.json").write_text(json.dumps({"compaction": {"enabled": False}}))
    table = {
        f"notes{n}": {"command": sys.executable, "args": [str(_SERVER), "--name", f"notes{n}"]} for n in range(servers)
    }
    (home / "mcp.json").write_text(json.dumps({"mcpServers": table}))


def _run(home: Path, work: Path) -> float:
    """Spawn to the provider call, in ms."""
    out = home.parent / "probe.json"
    env = {**os.environ, "PRIME_AGENT_DIR": str(home)}
    spawned = time.time()
    subprocess.run(
        [sys.executable, str(_PROBE), str(out), *_ARGS],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    report = json.loads(out.read_text())
    return (report["marks"]["provider_call"] - spawned) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        cases = {"no MCP servers": 0, "five stdio servers": 5}
        homes = {}
        for name, servers in cases.items():
            home = Path(scratch) / name.replace(" ", "_") / "home"
            _agent_dir(home, servers)
            (home.parent / "work").mkdir()
            homes[name] = home
        times: dict[str, list[float]] = {name: [] for name in cases}
        for home in homes.values():  # one warm-up each: the file cache, the bytecode
            _run(home, home.parent / "work")
        for _ in range(args.reps):
            for name, home in homes.items():
                times[name].append(_run(home, home.parent / "work"))
    print(f"launch -> first model request, `jupyter prime -p`, {args.reps} runs each (ms):")
    for name, values in times.items():
        print(f"  {name:20} {median(values):7.1f} ({min(values):.1f}-{max(values):.1f})")
    ratio = median(times["five stdio servers"]) / median(times["no MCP servers"])
    verdict = "met" if ratio <= TARGET else "NOT met"
    print(f"  ratio {ratio:.3f}x (target <= {TARGET}x: {verdict})")


if __name__ == "__main__":
    main()
