"""The C-heap policy: `reuse_freed_blocks()` applies once, says so, and nothing applies it by import.

What it saves (page faults of a large block after a freed one) is a figure, printed by
`benchmarks/bench_heap.py`, not asserted here.
"""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_PROBE = """
from prime_jupyter import heap_policy
import prime_jupyter.server.app, prime_jupyter.gc_policy  # importing the hosts' modules applies nothing
print(heap_policy.applied(), heap_policy.reuse_freed_blocks(), heap_policy.reuse_freed_blocks(), heap_policy.applied())
"""


def test_the_policy_applies_once_and_only_when_called() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    before, first, second, after = done.stdout.split()
    glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert (before, second, after) == ("False", "False", "True")
    assert first == str(glibc)  # mallopt took both thresholds (elsewhere there is nothing to do)


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's malloc")
def test_the_benchmark_of_its_effect_runs() -> None:
    command = [sys.executable, "benchmarks/bench_heap.py", "--size", "1000000"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["default", "policy"]
