"""MCP servers over HTTP, in a real Jupyter server: `/mcp` as a `POST chat` is a run of its own (start, the
servers' report, done), and a stdio server's tool the model calls reaches the panel's tool part and the
model through the chat route."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from kit.server import PrimeClient, part_text, text_of, tool_parts

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

SERVER = Path(__file__).resolve().parents[1] / "resources" / "mcp_servers" / "notes_server.py"


async def mcp_report(prime: PrimeClient, session_id: str) -> tuple[list[dict[str, Any]], str]:
    frames = await prime.turn(session_id, "/mcp")
    notices = [f["message"] for f in frames if f["type"] == "notify" and "MCP servers" in f["message"]]
    return frames, notices[-1] if notices else ""


async def test_mcp_is_a_run_of_its_own_and_a_servers_tool_reaches_the_model(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path
) -> None:
    servers = {"notes": {"command": sys.executable, "args": [str(SERVER)]}}
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    session_id = await prime.new_session()
    frames, report = await mcp_report(prime, session_id)
    assert [frames[0]["type"], frames[-1]["type"]] == ["start", "done"] and frames[-1]["stopReason"] == "stop"
    for _ in range(600):  # until the server is up: each /mcp is a round trip through the server, no sleep
        if "notes [ready]" in report:
            break
        assert "notes [failed]" not in report, report
        frames, report = await mcp_report(prime, session_id)
    assert "mcp__notes__lookup" in report and not llm.requests  # no /mcp reached the model
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="mcp__notes__lookup", arguments={"topic": "releases"})]),
        ScriptedTurn(blocks=[Text(text="Fridays")]),
    )
    frames = await prime.turn(session_id, "when do we ship?")
    [part] = tool_parts(frames)
    assert part["state"] == "output-available" and "note on releases: ship on Fridays" in part_text(part)
    assert "note on releases" in json.dumps(llm.requests[-1].body["messages"][-1])
    assert text_of(frames) == "Fridays"
