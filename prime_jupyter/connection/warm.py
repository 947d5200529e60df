"""The `headlessServer` setting: whether `jupyter prime -p` may run in a Jupyter server for its folder,
and the server that would be.

Read here, beside the discovery of running servers (`_discovery`), so a front end can decide where to
run before it imports the runtime; the runtime's `Settings` validates the same key. Project settings
(`<cwd>/.prime/agent/settings.json`) override the global ones (`<agent dir>/settings.json`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from prime_jupyter.ai.config_file import read_config
from prime_jupyter.ai.registry import agent_dir
from prime_jupyter.errors import ConfigError

__all__ = ["headless_server_choice", "warm_server"]


def headless_server_choice(cwd: Path) -> Literal["auto", "never"]:
    """ "auto" when the settings say so, else "never" (also for settings that cannot be read: the run in
    this process then reports what is wrong with them)."""
    choice: object = "never"
    for path in (agent_dir() / "settings.json", cwd / ".prime" / "agent" / "settings.json"):
        try:
            text = read_config(path)
            data = json.loads(text) if text is not None else {}
        except (ConfigError, ValueError):
            return "never"
        if isinstance(data, dict) and "headlessServer" in data:
            choice = data["headlessServer"]
    return "auto" if choice == "auto" else "never"


def warm_server(cwd: Path) -> str | None:
    """Where the newest running Jupyter server whose root holds `cwd` listens, or None when none does."""
    from prime_jupyter.connection._discovery import find_server  # with the HTTP transport: only when asked

    found = find_server(cwd)
    return found.endpoint.display if found is not None else None
