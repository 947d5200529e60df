"""prime-jupyter: a Jupyter-native AI agent whose hands are a real IPython kernel.

Importing this package is cheap: no provider SDK, no server, no kernel. The server extension entry
points are resolved lazily so `jupyter server` pays for them only when it loads the extension.
"""

from __future__ import annotations

import pathlib as _pl
from typing import Any

from prime_jupyter._version import __version__

_here = _pl.Path(__file__).resolve().parent
if not (_here / "cli").is_dir() and (_here.parent / "cli" / "__init__.py").is_file():
    # Editable checkout: serve the top-level ../cli folder as prime_jupyter.cli.
    __path__.insert(0, str(_here.parent))

__all__ = ["__version__", "_jupyter_labextension_paths", "_jupyter_server_extension_points"]


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "prime-jupyter"}]


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    from prime_jupyter.server.app import PrimeApp

    return [{"module": "prime_jupyter", "app": PrimeApp}]
