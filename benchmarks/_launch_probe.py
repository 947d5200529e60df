"""`jupyter prime` stopped at its provider call: the benchmark's probe, not the product's.

Usage: `python _launch_probe.py OUT.json [jupyter prime arguments...]`

Runs `prime_jupyter.cli.__main__.main(arguments)` as the console script does, stamping (wall clock)
the moment `open_connection` returns (the session is built) and the moment the agent loop calls
`stream()` (the provider's turn begins: what follows is the provider module, its SDK or HTTP stack and
the request). At that call OUT.json gets the stamps and the modules imported so far, and the process
exits. The two functions are wrapped by an import hook when their modules are executed, so nothing is
imported earlier than the command itself imports it.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

_started = time.time()
_marks: dict[str, float] = {}


def _write_and_exit(out: str) -> None:
    _marks["provider_call"] = time.time()
    report = {"started": _started, "marks": _marks, "modules": sorted(sys.modules)}
    with open(out, "w") as f:
        json.dump(report, f)
    os._exit(0)


class _Hook(importlib.machinery.PathFinder):
    """Wraps `open_connection` and the loop's `stream` right after their modules run."""

    def __init__(self, out: str) -> None:
        self._out = out

    def find_spec(  # type: ignore[override]
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in ("prime_jupyter.connection.door", "prime_jupyter.agent.loop"):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        run: Callable[[ModuleType], None] = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            self._wrap(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec

    def _wrap(self, module: ModuleType) -> None:
        if module.__name__ == "prime_jupyter.connection.door":
            opened = getattr(module, "open_connection")  # noqa: B009 (a module the checker cannot see through)

            async def open_connection(*args: Any, **kwargs: Any) -> Any:
                connection = await opened(*args, **kwargs)
                _marks["session_built"] = time.time()
                return connection

            setattr(module, "open_connection", open_connection)  # noqa: B010
        else:
            setattr(module, "stream", lambda *args, **kwargs: _write_and_exit(self._out))  # noqa: B010


def main() -> int:
    out, arguments = sys.argv[1], sys.argv[2:]
    sys.meta_path.insert(0, _Hook(out))
    _marks["main"] = time.time()
    from prime_jupyter.cli.__main__ import main as prime_main

    prime_main(arguments)
    return 1  # the run ended without calling a provider


if __name__ == "__main__":
    raise SystemExit(main())
