"""Whether `jupyter prime -p` runs its session in a Jupyter server running for this folder (design.md D6).

A warm server has the provider SDK imported and its connections open, so a run there skips this
process's start-up; the command then only sends the prompt and prints the events, as `jupyter prime
attach -p` does. It is a choice (`--server auto|never`, setting `headlessServer`), and the default is
`never`: a run in the server uses the server's agent dir, settings, keys and environment, not this
shell's (an `ANTHROPIC_API_KEY` exported for this one command would be ignored), and stores its session
there; a script's output should not change because a notebook server happens to be running. With
`auto`, only a new session with options the server takes (`--model`) goes there; `-c`, `-r`,
`--no-session`, `--tools`, `--thinking`, `--permission-mode` and the system prompt options run here; a
run in the server asks for permission mode `auto` (nobody answers approvals in `-p`). Stderr says which.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prime_jupyter.connection.door import ServerTarget

__all__ = ["server_target"]

_HERE_ONLY = (
    "cont",
    "resume",
    "no_session",
    "tools",
    "thinking",
    "system_prompt",
    "append_system_prompt",
    "permission_mode",
)
"""Options that make `-p` run here. `--permission-mode` is one: a run that may need approvals runs where
nobody-can-answer refuses them with a hint, not in a server where they would wait."""


def server_target(ns: dict[str, object], cwd: Path) -> tuple[ServerTarget, str] | None:
    """The server session to run `-p` in and where that server is, or None to run it in this process."""
    if _choice(ns, cwd) != "auto" or any(ns[name] for name in _HERE_ONLY) or ns["no_context_files"]:
        return None
    from prime_jupyter.connection.door import ServerTarget
    from prime_jupyter.connection.warm import warm_server

    where = warm_server(cwd)
    if where is None:
        return None
    model = ns["model"]
    model_ref = model if isinstance(model, str) else None
    return ServerTarget(cwd=cwd, model=model_ref, permission_mode="auto"), where  # nobody answers approvals


def _choice(ns: dict[str, object], cwd: Path) -> str:
    if isinstance(ns["server"], str):
        return ns["server"]
    from prime_jupyter.connection.warm import headless_server_choice

    return headless_server_choice(cwd)
