"""Running `jupyter prime` as a subprocess, as a user's shell would, on an agent home of the scripted server."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

from prime_jupyter.testing import ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]


def write_cli_agent_dir(home: Path, llm: ScriptedLLMServer) -> None:
    """Providers `scripted` (Anthropic's API, model m1) and `scripted-openai` (chat completions, m2) on `llm`."""
    home.mkdir(parents=True, exist_ok=True)
    providers = {
        "scripted": {
            "baseUrl": llm.base_url,
            "api": "anthropic-messages",
            "apiKey": "test-key",
            "models": [{"id": "m1", "reasoning": True, "contextWindow": 200000}],
        },
        "scripted-openai": {
            "baseUrl": llm.base_url + "/v1",
            "api": "openai-completions",
            "apiKey": "k",
            "models": [{"id": "m2"}],
        },
    }
    (home / "models.json").write_text(json.dumps({"providers": providers}))
    (home / "settings.json").write_text(json.dumps({"permissionMode": "auto"}))  # tools run without asking


def cli_env(agent_dir: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment without the caller's API keys, on `agent_dir`, importing this checkout."""
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environment.update({"PRIME_AGENT_DIR": str(agent_dir), "PYTHONPATH": str(ROOT)}, **(extra or {}))
    return environment


def prime_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "prime_jupyter.cli", *args]


def prime(
    agent_dir: Path,
    *args: str,
    stdin: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    max_file_bytes: int | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run `jupyter prime`; `max_file_bytes` caps every file it writes (RLIMIT_FSIZE), as a full disk would;
    a run longer than `timeout` seconds fails the test (`subprocess.TimeoutExpired`)."""

    def limit() -> None:
        if max_file_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes))

    return subprocess.run(
        prime_command(*args),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=cli_env(agent_dir, env),
        cwd=cwd or agent_dir.parent,
        preexec_fn=limit if max_file_bytes is not None else None,
    )


def group_members(pgid: int) -> list[int]:
    """The live (not zombie) processes of a process group, from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def left_in_group(pgid: int, within: float = 30.0) -> list[int]:
    """What is still running in the group once it emptied or `within` seconds passed; whatever is left
    is then killed, so that a failing test leaves nothing behind."""
    deadline = time.monotonic() + within
    while (left := group_members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    if left:
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
    return left
