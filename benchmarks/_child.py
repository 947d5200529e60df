"""Processes under measurement: stdout lines stamped on arrival, peak RSS from `wait4`, the tap server.

Peak RSS is the command's own rusage, taken by the `_spawn.py` middleman (see there why the benchmark
cannot take it itself): `ru_maxrss` is the high-water mark of the command and of every descendant it
waited for, so a `node` or `python` agent and the shells of its bash tool are measured the same way,
exactly, without polling.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

__all__ = ["ChildRun", "TapServer", "TapTimes", "run_child"]

_TAP_SERVER = Path(__file__).with_name("_tap_server.py")
_SPAWN = Path(__file__).with_name("_spawn.py")


@dataclass(frozen=True)
class ChildRun:
    """What one measured process did: when it started, what it printed and when, how it ended."""

    spawned_at: float
    """`time.time()` just before the command was spawned."""
    lines: list[tuple[float, bytes]]
    """Each stdout line (newline stripped) with the `time.time()` it was read."""
    ended_at: float
    """`time.time()` when `wait4` returned."""
    exit_code: int
    peak_rss_kb: int
    stderr: str

    def events(self) -> list[tuple[float, dict[str, object]]]:
        """The stdout lines that are JSON objects, parsed, with their arrival times."""
        parsed: list[tuple[float, dict[str, object]]] = []
        for stamp, line in self.lines:
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                parsed.append((stamp, value))
        return parsed


def _read_lines(stream: IO[bytes], sink: list[tuple[float, bytes]]) -> None:
    for line in iter(stream.readline, b""):
        sink.append((time.time(), line.rstrip(b"\n")))


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def run_child(argv: list[str], cwd: Path, env: dict[str, str], stderr_path: Path, timeout: float = 300) -> ChildRun:
    """Run `argv` to completion through `_spawn.py`, stamping each stdout line as it arrives.

    The command runs in its own process group, killed as a whole after `timeout` seconds.
    """
    lines: list[tuple[float, bytes]] = []
    report = stderr_path.with_suffix(".spawn.json")
    report.unlink(missing_ok=True)
    spawn = [sys.executable, "-I", "-S", str(_SPAWN), str(report), *argv]
    with stderr_path.open("wb") as err:
        proc = subprocess.Popen(
            spawn,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            start_new_session=True,
        )
        assert proc.stdout is not None
        reader = threading.Thread(target=_read_lines, args=(proc.stdout, lines), daemon=True)
        reader.start()
        timer = threading.Timer(timeout, _kill_group, (proc,))
        timer.start()
        try:
            proc.wait()
            reader.join(timeout)
        finally:
            timer.cancel()
            proc.stdout.close()
    stderr = stderr_path.read_text(errors="replace")
    if proc.returncode != 0 or not report.exists():
        return ChildRun(0.0, lines, 0.0, proc.returncode or -1, 0, f"spawn failed: {stderr}")
    done = json.loads(report.read_text())
    return ChildRun(done["spawned_at"], lines, done["ended_at"], done["exit_code"], done["peak_rss_kb"], stderr)


@dataclass(frozen=True)
class TapTimes:
    """Wire times of each request, in arrival order (see `_tap_server.py`)."""

    starts: list[float]
    ends: list[float]
    response_ends: list[float | None]
    request_bytes: list[int]
    connections: list[int]
    outcomes: list[str | None]


class TapServer:
    """The scripted server behind the timing tap, as a subprocess; `stop()` returns the wire times."""

    def __init__(self, script: Path, scratch: Path) -> None:
        self._out = scratch / "taps.json"
        self._out.unlink(missing_ok=True)
        self._log = (scratch / "tap_server.log").open("wb")
        self._proc = subprocess.Popen(
            [sys.executable, str(_TAP_SERVER), "--script", str(script), "--out", str(self._out)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        assert self._proc.stdout is not None
        ready = self._proc.stdout.readline().decode().split()
        if len(ready) != 2 or ready[0] != "READY":
            self._proc.kill()
            raise RuntimeError(f"tap server did not start (see {scratch / 'tap_server.log'})")
        self.base_url = ready[1]

    def stop(self) -> TapTimes:
        """Close the server's stdin, wait for it to write the taps, and read them."""
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._proc.wait(60)
        self._log.close()
        data = json.loads(self._out.read_text())
        taps = data["taps"]
        return TapTimes(
            starts=[t["start"] for t in taps],
            ends=[t["end"] for t in taps],
            response_ends=[t["response_end"] for t in taps],
            request_bytes=[t["request_bytes"] for t in taps],
            connections=[t["connection"] for t in taps],
            outcomes=list(data["outcomes"]),
        )
