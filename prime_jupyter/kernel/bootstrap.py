"""The bootstrap cell: loads our kernel-side helpers into a fresh kernel, by source.

Sending source (rather than importing prime_jupyter in the kernel) means the kernel's environment needs
nothing of ours: any IPython kernel works, a remote one included. The cell runs silently (no history,
no execution count) and leaves only `edit` and `attach_image` in the user namespace. It runs only in
kernels of the agent's own: the user's notebook kernel (`%%prime`) gets none (`kernel.guest`).
"""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["KERNEL_MODULES", "bootstrap_code"]

# kernel-side module name -> source file next to this one, in load order
KERNEL_MODULES = {"_prime_helpers": "helpers.py"}


@functools.cache
def _sources() -> tuple[tuple[str, str], ...]:
    here = Path(__file__).resolve().parent
    return tuple((name, (here / file).read_text(encoding="utf-8")) for name, file in KERNEL_MODULES.items())


def bootstrap_code(max_image_side: int = 1568) -> str:
    """Python source that installs the helpers into the kernel it runs in."""
    return f"""\
def __prime_bootstrap(sources, max_image_side):
    import sys, types
    for name, source in sources:
        module = types.ModuleType(name)
        module.__file__ = "<" + name + ">"
        sys.modules[name] = module
        exec(compile(source, module.__file__, "exec"), module.__dict__)
    sys.modules["_prime_helpers"].install(get_ipython(), max_image_side=max_image_side)
__prime_bootstrap({_sources()!r}, {int(max_image_side)})
del __prime_bootstrap
"""
