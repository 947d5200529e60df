"""What `heap_policy.reuse_freed_blocks()` saves: the page faults of a large block allocated after a
slightly smaller one was freed (a turn's request body after the last turn's), with and without it.

    python benchmarks/bench_heap.py [--size 6000000]

Prints the minor page faults of each case (each in a fresh process); on glibc about 1,500 without the
policy for 6 MB (fresh pages from the kernel) and a handful with it (the freed block's pages reused).
The test suite checks only that the policy is applied once (`tests/test_heap_policy.py`); figures are for
benchmarks, not assertions.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PROBE = """
import resource, sys
from prime_jupyter import heap_policy

if sys.argv[1] == "policy":
    heap_policy.reuse_freed_blocks()
size = int(sys.argv[2])
block = b"x" * size
del block
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
block = b"y" * (size + 8192)  # the next turn's body: a little larger than the last
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def page_faults(mode: str, size: int) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, mode, str(size)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return int(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=6_000_000)
    size = parser.parse_args().size
    for mode in ("default", "policy"):
        print(f"{mode:8} {page_faults(mode, size):6d} minor page faults for a block of {size:,} bytes")


if __name__ == "__main__":
    main()
