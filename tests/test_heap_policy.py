"""The C-heap policy: after `reuse_freed_blocks()` a large block freed is reused, not mapped afresh."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_PROBE = """
import resource, sys
from prime_jupyter import heap_policy

if sys.argv[1] == "policy":
    print(heap_policy.reuse_freed_blocks(), heap_policy.reuse_freed_blocks())
size = 6_000_000
block = b"x" * size
del block
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
block = b"y" * (size + 8192)  # the next turn's body: a little larger than the last
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _page_faults_of_a_larger_block(mode: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, mode], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.split()


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's malloc")
def test_a_larger_block_after_a_freed_one_reuses_its_pages() -> None:
    *said, faults = _page_faults_of_a_larger_block("policy")
    assert said == ["True", "False"]  # the first call applies it, once
    assert int(faults) < 100  # 6 MB of fresh pages would be about 1,500 faults


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's malloc")
def test_without_the_policy_the_larger_block_is_mapped_afresh() -> None:
    """The case the policy is for: what the test above would see without it."""
    (faults,) = _page_faults_of_a_larger_block("default")
    assert int(faults) > 1000
