"""An answer streamed in many deltas ends as the Markdown its whole text makes, whatever was shown while
it streamed (a long growing line is shown as plain text until it ends: `widgets/message.py`)."""

from __future__ import annotations

import pytest
from prime_jupyter.cli.tui.widgets.message import AssistantMessageView
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Markdown
from tui_kit import SIZE, answers, app_on, until

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

LONG_LINE = " ".join(f"word{i}" for i in range(600))  # about 4,300 characters, no line break
ANSWER = f"""Here is how to load it:

```python
import pandas as pd
frame = pd.read_csv("data.csv")
```

| column | type  |
|--------|-------|
| year   | int   |
| sales  | float |

{LONG_LINE}

That is **all**."""


def drawn(markdown: Widget) -> list[tuple[str, list[str]]]:
    """The Markdown's blocks: their kind and the lines they draw."""
    return [
        (type(b).__name__, [strip.text for strip in b.render_lines(Region(0, 0, *b.size))]) for b in markdown.children
    ]


@pytest.mark.asyncio
async def test_an_answer_streamed_in_many_deltas_ends_as_the_markdown_of_its_text(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text=ANSWER, chunks=400)], chunk_delay_s=0.01))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"how do I load data.csv?", "enter")
        await until(pilot, lambda: bool(app.screen.query(".answer-tail")))  # the long line, as plain text
        assert LONG_LINE not in answers(app)
        await until(pilot, lambda: "That is **all**." in answers(app))
        await pilot.pause()
        assert not app.screen.query(".answer-tail") and answers(app) == ANSWER
        streamed = app.screen.query_one(AssistantMessageView).query_one(Markdown)
        fresh = Markdown(ANSWER, classes="answer")
        await app.screen.query_one(AssistantMessageView).mount(fresh)
        await pilot.pause()
        kinds = [kind for kind, _ in drawn(streamed)]
        assert "MarkdownFence" in kinds and "MarkdownTable" in kinds and "MarkdownParagraph" in kinds
        assert drawn(streamed) == drawn(fresh) and streamed.size == fresh.size
        assert any("word599" in line for _, lines in drawn(streamed) for line in lines)
