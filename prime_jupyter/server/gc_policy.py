"""Keep the garbage collector's full passes short in a server that streams many answers at once.

A full (generation 2) collection walks every object the collector tracks. After start-up a Jupyter
server with this extension holds about 300,000 of them (its imports and ours, then the provider
SDK's), and a full pass over those took 100-370 ms here: every stream of every session stalls that
long, again and again while answers stream (`benchmarks/bench_server.py` saw frame latencies above
150 ms at the 99th percentile from exactly this). Nearly all of those objects live as long as the
process, so whenever the set of imported modules has grown (start-up, the routes imported by the
first request, a provider SDK imported by a first run) they are moved to the permanent generation
(`gc.freeze()`, which costs nothing itself) and later full passes walk only what came after.
The price is that a garbage cycle among frozen objects is never collected; plain reference counting
still frees everything else, and the frozen set is dominated by modules, classes and functions.
"""

from __future__ import annotations

import gc
import logging
import sys

__all__ = ["freeze_after_imports"]

log = logging.getLogger(__name__)

_modules_at_last_freeze = 0


def freeze_after_imports() -> bool:
    """Freeze what the collector tracks if modules were imported since the last call; say whether it did."""
    global _modules_at_last_freeze
    if len(sys.modules) <= _modules_at_last_freeze:
        return False
    _modules_at_last_freeze = len(sys.modules)
    gc.freeze()
    log.debug("froze %d long-lived objects (%d modules)", gc.get_freeze_count(), _modules_at_last_freeze)
    return True
