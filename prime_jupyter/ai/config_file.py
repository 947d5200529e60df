"""Reading the agent dir's own files (settings.json, auth.json, models.json) with errors that say what to fix."""

from __future__ import annotations

import os
from pathlib import Path

from prime_jupyter.errors import ConfigError

__all__ = ["agent_dir", "read_config"]


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
