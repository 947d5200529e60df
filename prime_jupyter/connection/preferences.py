"""The user's own preferences of a front end on this machine, kept in the agent's `settings.json`.

A front end's look (the terminal app's theme) belongs to the person at this machine, not to a session:
it is read from and written to the global `<agent dir>/settings.json` (`$PRIME_AGENT_DIR`, else
`~/.prime/agent`), beside the agent's other settings, which a write keeps as they are. The runtime's
`Settings` names the keys (`theme`) and otherwise ignores them. Blocking (file I/O): call it off the UI
thread, or before the app starts.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from pydantic import JsonValue  # already imported by the app's seam types: no cost at launch

from prime_jupyter.ai.config_file import agent_dir, read_json_object

__all__ = ["read_preference", "settings_path", "write_preference"]


def settings_path() -> Path:
    """The global settings file of this machine's agent."""
    return agent_dir() / "settings.json"


def read_preference(path: Path, key: str) -> JsonValue:
    """The value of `key` in the settings file at `path` (None when the file or the key is not there)."""
    return read_json_object(path).get(key)


def write_preference(path: Path, key: str, value: JsonValue) -> None:
    """Set `key` in the settings file at `path`, keeping every other setting; atomic (a crash leaves the old
    file or the new one). A file that is not a JSON object is left alone: `ConfigError` says to fix it."""
    settings = read_json_object(path)
    settings[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".settings-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(settings, file, indent=2, ensure_ascii=False)
            file.write("\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
