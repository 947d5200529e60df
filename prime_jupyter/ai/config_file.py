"""Reading the agent dir's own files (settings.json, auth.json, models.json) with errors that say what to fix."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from prime_jupyter.errors import ConfigError

__all__ = ["agent_dir", "read_config", "read_json_object"]


def agent_dir() -> Path:
    """The agent's home: `$PRIME_AGENT_DIR`, else `~/.prime/agent`."""
    override = os.environ.get("PRIME_AGENT_DIR")
    return Path(override).expanduser() if override else Path.home() / ".prime" / "agent"


def read_config(path: Path) -> str | None:
    """The file's text, or None when it does not exist. A file that is there but cannot be read (the agent
    dir is a file, the path is a folder, the text is not UTF-8) raises `ConfigError` naming it and why."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise ConfigError(
            f"cannot read {path}: {path.parent} is not a folder (the agent dir is $PRIME_AGENT_DIR, else"
            " ~/.prime/agent)"
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text; fix or delete it") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc


def read_json_object(path: Path, what: str = "a JSON object") -> dict[str, Any]:
    """The JSON object in the file (empty when the file is missing or blank); `ConfigError` names the file
    and says what to fix when it is not JSON or not an object (`what` says what it should hold)."""
    text = read_config(path)
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}); fix or delete it") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold {what}")
    return data
