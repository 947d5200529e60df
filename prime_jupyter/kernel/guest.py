"""What the agent's code gets in the user's own kernel (`%%prime`), and only while it runs.

The notebook's kernel is the user's (design.md D16): loading the extension and running the agent change
none of its magics (`%%bash` stays IPython's) and none of its names. The helpers a kernel of the agent's
own has as `edit` and `attach_image` are lent under one name, `helpers.HELPERS_NAME` (`__prime__`), for
the duration of each of the agent's executions, hidden from `%who`, and taken back afterwards: what the
user had under that name comes back, and what the agent's code bound there itself stays.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from prime_jupyter.kernel.helpers import HELPERS_NAME, helpers_namespace

__all__ = ["HELPERS_NAME", "lent_helpers"]

_MISSING = object()


@contextlib.contextmanager
def lent_helpers(shell: Any) -> Iterator[None]:
    """`__prime__` in `shell`'s user namespace while the block runs."""
    namespace, hidden = shell.user_ns, shell.user_ns_hidden
    before, hidden_before = namespace.get(HELPERS_NAME, _MISSING), hidden.get(HELPERS_NAME, _MISSING)
    helpers = helpers_namespace()
    namespace[HELPERS_NAME] = hidden[HELPERS_NAME] = helpers
    try:
        yield
    finally:
        if namespace.get(HELPERS_NAME, _MISSING) is helpers:  # else the agent's code bound it: its own now
            _put_back(namespace, before)
        if hidden.get(HELPERS_NAME, _MISSING) is helpers:
            _put_back(hidden, hidden_before)


def _put_back(mapping: dict[str, Any], value: object) -> None:
    if value is _MISSING:
        mapping.pop(HELPERS_NAME, None)
    else:
        mapping[HELPERS_NAME] = value
