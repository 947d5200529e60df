"""`/mcp` in the terminal app: the session's servers, their state and their tools, as a notice."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from prime_jupyter.cli.tui.widgets.message import Notice
from tui_kit import SIZE, app_on, local_connection, until

SERVER = Path(__file__).resolve().parents[2] / "resources" / "mcp_servers" / "notes_server.py"


@pytest.mark.asyncio
async def test_mcp_lists_the_servers_with_their_state_and_tools(home: Path) -> None:
    servers = {"notes": {"command": sys.executable, "args": [str(SERVER)]}}
    (home / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    connection = local_connection(home)
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            mcp = connection.session.mcp
            assert mcp is not None
            await asyncio.wait_for(mcp.wait_for(lambda h: h.status()[0].state == "ready"), 60)
            await pilot.press(*"/mcp", "enter")

            def report() -> str:
                return next((str(n.content) for n in app.screen.query(Notice) if "MCP servers" in str(n.content)), "")

            await until(pilot, lambda: "notes [ready]" in report())
            assert "mcp__notes__lookup" in report() and "mcp__notes__red_square" in report()
    finally:
        await connection.dispose()
