"""MCP servers in `jupyter prime -p`: `-p /mcp` prints the report of the project's servers and asks no
model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from kit.cli import prime

from prime_jupyter.testing import ScriptedLLMServer

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess

SERVER = Path(__file__).resolve().parents[1] / "resources" / "mcp_servers" / "notes_server.py"


def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / ".prime" / "agent").mkdir(parents=True)
    servers = {"notes": {"command": sys.executable, "args": [str(SERVER)]}}
    (work / ".prime" / "agent" / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return work


def test_print_mode_mcp_prints_the_servers_and_asks_no_model(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    done = prime(agent_dir, "--model", "scripted/m1", "--tools", "read", "-p", "/mcp", cwd=project(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("MCP servers (1):\n- notes [") and "stdio:" in done.stdout
    assert not llm.requests
