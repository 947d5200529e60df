"""The process's garbage-collector policy, in named moments that only the hosts call (the CLI, the server).

No library module touches `gc`: a library cannot know whether its process is a short command, a
long-lived server or somebody's notebook kernel, so it would be choosing for all of them. The hosts
know, and say which moment has come:

- `start_up()` (the command line): start-up allocates a lot and frees little (imports, a resumed
  transcript of a million objects), so collecting then is wasted work: collection is off.
- `start_up_done()`: the first answer streams; what start-up built lives as long as the process, so
  it is frozen (`gc.freeze()`: moved to the permanent generation, never scanned again) and
  collection comes back. The turns begin, so the C heap starts keeping the large blocks they free
  for the next turn (`heap_policy`).
- `modules_loaded()` (the server after start-up, and the hosts after a run that imported modules): a
  full (generation 2) pass walks every tracked object, and a Jupyter server with this extension holds
  about 300,000 after start-up; a full pass over those took 100-370 ms here, stalling every stream of
  every session (`benchmarks/bench_server.py` saw frame latencies above 150 ms at the 99th percentile
  from exactly this). Nearly all of them are modules, classes and functions, so whenever the set of
  imported modules has grown they are frozen, and later full passes walk only what came after.
- `bulk_load()` (the server, around opening a long transcript): a 22,000-entry transcript is about a
  million tracked objects; with the collector running the growing heap is rescanned many times during
  the load, and once more by each young generation afterwards (together about three quarters of the
  load time). The collector is paused, and on exit what was built is frozen, as start-up is: every
  later full pass would walk that million objects again, and each turn of a resumed session builds a
  request body large enough to trigger several (a body build of the 22,000-entry session took about
  125 ms with the transcript scanned, 56 ms with the collector off, 66 ms with it frozen;
  `benchmarks/bench_resume_library.py`). A session's transcript is acyclic data: when the session
  goes, reference counting frees it, frozen or not.

Every freeze comes after a collection (`_freeze`), so what is frozen is what is alive: garbage frozen with
it would never be freed. The price of freezing is then only that a cycle among frozen objects that becomes
garbage later is never collected; plain reference counting still frees everything else.

The Jupyter server is shared with the user's other extensions: it calls these moments only when its
administrator opts in (`c.PrimeApp.tune_process_memory`); the command line, whose process is its own, always.
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from prime_jupyter import heap_policy

__all__ = ["bulk_load", "modules_loaded", "start_up", "start_up_done"]

log = logging.getLogger(__name__)

_modules_at_last_freeze = 0


def start_up() -> None:
    """A command starts: no collection until `start_up_done()`."""
    gc.disable()


def start_up_done() -> bool:
    """The command's first answer streams (or its run ended): freeze start-up's objects, collect again.

    Says whether this call did it (only the first call after `start_up()` does)."""
    if gc.isenabled():
        return False
    _freeze()
    gc.enable()
    heap_policy.reuse_freed_blocks()
    return True


def modules_loaded() -> bool:
    """Freeze what the collector tracks if modules were imported since the last call; say whether it did."""
    global _modules_at_last_freeze
    if len(sys.modules) <= _modules_at_last_freeze:
        return False
    _modules_at_last_freeze = len(sys.modules)
    _freeze()
    if log.isEnabledFor(logging.DEBUG):  # counting the frozen objects walks them all: 60 ms after an SDK import
        log.debug("froze %d long-lived objects (%d modules)", gc.get_freeze_count(), _modules_at_last_freeze)
    return True


@contextmanager
def bulk_load() -> Iterator[None]:
    """Build many long-lived objects (a long transcript) without the collector rescanning them."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        _freeze()
        if was_enabled:
            gc.enable()


def _freeze() -> None:
    """Collect, then freeze what is left: the garbage of the moment is freed, not frozen with the living."""
    gc.collect()
    gc.freeze()
