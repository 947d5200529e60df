"""The environment the agent's kernels and commands run in, where a server hosts the session.

A server's environment holds the keys its administrator gave it for the providers (`ANTHROPIC_API_KEY`,
a models.json `apiKey` naming a variable). The agent's code needs none of them: the server talks to the
providers, and code the model writes (or a `!cmd` a user types in the panel) could read and print them. So
the kernels the server starts for sessions and the `bash` and `!` commands get the server's environment
without them, nor without the names the administrator adds (`c.PrimeApp.hidden_environment`, shell-style
patterns such as `*_TOKEN`). The terminal app runs in the user's own environment and keeps it whole.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from prime_jupyter.ai.registry import ModelRegistry
from prime_jupyter.errors import ConfigError

__all__ = ["Environment", "without_provider_keys"]

Environment = Callable[[], dict[str, str]]
"""Makes the environment of a kernel or a command as it starts (read then: a key saved since counts)."""


def without_provider_keys(agent_dir: Path, hidden: Iterable[str] = ()) -> Environment:
    """This process's environment without the provider keys of `agent_dir`'s registry and the variables
    matching `hidden`."""
    patterns = tuple(hidden)

    def environment() -> dict[str, str]:
        try:
            keys = ModelRegistry.load(agent_dir).key_variables()
        except ConfigError:  # a broken models.json is reported where a model is needed; the built-ins still hide
            keys = ModelRegistry(agent_dir).key_variables()
        return {
            name: value
            for name, value in os.environ.items()
            if name not in keys and not any(fnmatch.fnmatchcase(name, p) for p in patterns)
        }

    return environment
