"""Issue 31 item 10: the terminal app's Markdown dropped the backslash of `\\_` inside math (`$x\\_1$` showed
as `$x_1$`), which LaTeX needs. Math is shown as written; elsewhere `\\_` is still an escaped `_`."""

from __future__ import annotations

import pytest
from prime_jupyter.cli.tui.widgets.message import AssistantMessageView
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock, MarkdownFence
from tui_kit import SIZE, answers, app_on, until

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

ANSWER = "The fit is $\\hat y\\_1 = 2x$, it costs \\_ $5 and $6.\n\n$$\ny\\_i = a\\_0 + a\\_1 x\\_i\n$$\n"


@pytest.mark.asyncio
async def test_math_keeps_its_backslashes(connection: InProcessAgentConnection, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text=ANSWER, chunks=5)]))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"fit it", "enter")
        await until(pilot, lambda: "a\\_0" in answers(app))
        await pilot.pause()
        markdown = app.screen.query_one(AssistantMessageView).query_one(Markdown)
        blocks = markdown.query(MarkdownBlock)
        shown = "\n".join(b.code if isinstance(b, MarkdownFence) else str(b.content) for b in blocks)
        assert "The fit is $\\hat y\\_1 = 2x$, it costs _ $5 and $6." in shown, shown
        assert "y\\_i = a\\_0 + a\\_1 x\\_i" in shown, shown
