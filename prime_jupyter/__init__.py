"""prime-jupyter: a Jupyter-native AI agent whose hands are a real IPython kernel.

Importing this package is cheap: no provider SDK, no server, no kernel. The server extension entry
points, the IPython extension (`%load_ext prime_jupyter`) and `Session` (the Python API) are resolved
lazily, so each surface pays only for what it uses.
"""

from __future__ import annotations

import pathlib as _pl
from typing import TYPE_CHECKING, Any

from prime_jupyter._version import __version__

if TYPE_CHECKING:
    from prime_jupyter.magics.api import Session

_here = _pl.Path(__file__).resolve().parent
if not (_here / "cli").is_dir() and (_here.parent / "cli" / "__init__.py").is_file():
    # Editable checkout: serve the top-level ../cli folder as prime_jupyter.cli.
    __path__.insert(0, str(_here.parent))

__all__ = [
    "Session",
    "__version__",
    "_jupyter_labextension_paths",
    "_jupyter_server_extension_points",
    "load_ipython_extension",
    "unload_ipython_extension",
]


def __getattr__(name: str) -> Any:
    if name == "Session":  # the Python API, imported on first use
        from prime_jupyter.magics.api import Session

        return Session
    raise AttributeError(f"module 'prime_jupyter' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext prime_jupyter`: register the `%prime` / `%%prime` magics (no provider SDK imported)."""
    from prime_jupyter.magics.extension import load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from prime_jupyter.magics.extension import unload

    unload(ipython)


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "prime-jupyter"}]


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    from prime_jupyter.server.app import PrimeApp

    return [{"module": "prime_jupyter", "app": PrimeApp}]
