"""A small middleman that runs one command and reports its spawn time, exit and exact peak RSS.

Usage: `python -I -S _spawn.py REPORT.json ARGV...` (stdin, stdout, stderr, cwd and environment pass
straight through to the command).

Why a middleman: on Linux `execve` folds the high-water RSS of the address space it replaces into the
new program's `ru_maxrss`, and `posix_spawn`/`vfork` children replace their *parent's* address space.
A command spawned by the benchmark (which holds an 18 MB session and megabytes of captured output)
would report at least the benchmark's own peak. Spawned from this process instead (a few MB, since
it imports nothing but builtins), `ru_maxrss` is the command's own peak (and that of any descendant it
waited for, e.g. the shells of a bash tool).
"""

import json
import os
import sys
import time


def main() -> int:
    report, argv = sys.argv[1], sys.argv[2:]
    spawned_at = time.time()
    pid = os.posix_spawnp(argv[0], argv, dict(os.environ))
    _, status, usage = os.wait4(pid, 0)
    result = {
        "spawned_at": spawned_at,
        "ended_at": time.time(),
        "exit_code": os.waitstatus_to_exitcode(status),
        "peak_rss_kb": usage.ru_maxrss,
    }
    with open(report, "w") as out:
        json.dump(result, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
