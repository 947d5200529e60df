"""Issue 31 item 10: Esc during a tool call aborted the run but showed no "Aborted." line (Ctrl+C did)."""

from __future__ import annotations

import pytest
from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.widgets.message import Notice
from prime_jupyter.cli.tui.widgets.tool_card import ToolCard
from textual.pilot import Pilot
from tui_kit import SIZE, app_on, card_text, until

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, ToolCall

SLOW = ToolCall(name="bash", arguments={"command": "echo started; sleep 60"})


def aborted_lines(app: PrimeApp) -> list[str]:
    return [str(n.content) for n in app.screen.query(Notice) if "Aborted" in str(n.content)]


async def abort_a_tool_call(pilot: Pilot[None], app: PrimeApp, key: str) -> None:
    await pilot.press(*"run the slow thing", "enter")
    await until(pilot, lambda: any("started" in card_text(c) for c in app.screen.query(ToolCard)), within=30)
    await pilot.press(key)
    await until(pilot, lambda: not app.screen.feed.running, within=30)  # type: ignore[attr-defined]


@pytest.mark.asyncio
@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_aborting_a_tool_call_says_aborted(
    key: str, connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[SLOW]))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await abort_a_tool_call(pilot, app, key)
        await until(pilot, lambda: aborted_lines(app) != [])
        assert len(aborted_lines(app)) == 1
