"""The process's C-heap policy, in one named moment that only the hosts call (as `gc_policy` is): the
command line once its start-up is over (`gc_policy.start_up_done()`), the server when it makes its
bridge, if its administrator let it (`c.PrimeApp.tune_process_memory`: the server is a shared process).

Each turn of a long session builds its request body anew as one large bytes object (5.7 MB at 10,000
entries), and the HTTP stack copies it once more on its way to the socket. glibc's malloc serves a
block above its mmap threshold with fresh pages from the kernel and gives them back when the block is
freed. It raises that threshold to the size of a block freed, but the next body is a little larger
than the last one, so it is mapped afresh too: every turn page-faulted about 3,000 pages in (12 MB), 3
to 4 ms of the gap between two turns at 10,000 entries, where at 10 entries there are none
(`benchmarks/bench_agent.py`, cases `gap-10` and `gap-10k`).

`reuse_freed_blocks()` fixes the two thresholds where glibc's own rule would end up for large blocks:
blocks up to 32 MB (the largest threshold glibc picks by itself on a 64-bit system) come from the heap,
and the heap gives memory back to the kernel once 64 MB lie free at its top (twice the mmap threshold,
as glibc's rule sets it). A turn's bodies then reuse the pages of the turn before. What stays mapped
is what a turn needs again; a process that never builds such blocks sees no difference.

Elsewhere than glibc (macOS, musl) nothing is done: `mallopt` is missing or a no-op there.
"""

from __future__ import annotations

__all__ = ["applied", "reuse_freed_blocks"]

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 32 * 1024 * 1024
_TRIM_THRESHOLD = 2 * _MMAP_THRESHOLD

_applied = False


def applied() -> bool:
    """Whether `reuse_freed_blocks()` has run in this process (and so may have changed its allocator)."""
    return _applied


def reuse_freed_blocks() -> bool:
    """Keep large freed blocks in the heap for reuse (see the module docstring); say whether this call did.

    Only the first call does anything (it imports `ctypes`, about 1.5 ms: a host calls it once start-up
    is over). Contract: must not raise."""
    global _applied
    if _applied:
        return False
    _applied = True
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):  # no ctypes, or a C library without mallopt
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))
