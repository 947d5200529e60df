"""How the app looks: SVG snapshots (pytest-textual-snapshot) of a real session on the scripted server.

Each app opens its own in-process session on its own event loop (the snapshot runs the app) and disposes
of it as it closes. The footer shows a fixed directory; nothing on screen depends on the clock.
Update the pictures with `pytest tests/cli/tui/test_snapshots.py --snapshot-update`, and look at them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.screens.question import QuestionDialog
from prime_jupyter.cli.tui.widgets.editor import PromptEditor
from prime_jupyter.cli.tui.widgets.status_footer import StatusFooter
from prime_jupyter.cli.tui.widgets.tool_card import ToolCard
from textual.pilot import Pilot
from tui_kit import answers, local_connection, until

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

SnapCompare = Callable[..., bool]

ANSWER = """Here is how to load it:

```python
import pandas as pd
frame = pd.read_csv("data.csv")
```

| column | type  |
|--------|-------|
| year   | int   |
| sales  | float |

That is **all**."""


def app_in(home: Path, tools: list[str] | None = None) -> PrimeApp:
    async def connect() -> AgentConnection:
        return local_connection(home, tools)

    return PrimeApp(connect, cwd_label="~/work", owns_connection=True)


async def connected(pilot: Pilot[None]) -> None:
    pilot.app.screen.query_one(PromptEditor).cursor_blink = False  # a blinking cursor is there or not
    await until(pilot, lambda: pilot.app.screen.query_one(StatusFooter).info.model is not None)


def prompt(text: str, done: Callable[[Pilot[None]], bool]) -> Callable[[Pilot[None]], object]:
    async def run(pilot: Pilot[None]) -> None:
        await connected(pilot)
        await pilot.press(*text, "enter")
        await until(pilot, lambda: done(pilot), within=60)

    return run


def test_the_empty_app(snap_compare: SnapCompare, home: Path) -> None:
    assert snap_compare(app_in(home), terminal_size=(100, 30), run_before=connected)


def test_a_streamed_answer_with_code_and_a_table(snap_compare: SnapCompare, home: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text=ANSWER, chunks=12)]))
    done = prompt("how do I load data.csv?", lambda pilot: "That is **all**." in answers(pilot.app))
    assert snap_compare(app_in(home), terminal_size=(100, 30), run_before=done)


def test_an_80_by_24_terminal(snap_compare: SnapCompare, home: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text=ANSWER, chunks=12)]))
    done = prompt("how do I load data.csv?", lambda pilot: "That is **all**." in answers(pilot.app))
    assert snap_compare(app_in(home), terminal_size=(80, 24), run_before=done)


def test_an_ipython_card(snap_compare: SnapCompare, home: Path, llm: ScriptedLLMServer) -> None:
    code = "for i in range(12):\n    print('line', i)\n{'rows': 3}\n1/0"
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", id="call-1", arguments={"code": code})]),
        ScriptedTurn(blocks=[Text(text="It divided by zero.")]),
    )

    def card_done(pilot: Pilot[None]) -> bool:
        return "It divided by zero." in answers(pilot.app) and bool(pilot.app.screen.query(ToolCard))

    assert snap_compare(app_in(home, ["ipython"]), terminal_size=(100, 40), run_before=prompt("run it", card_done))


def test_a_question_dialog(snap_compare: SnapCompare, home: Path, llm: ScriptedLLMServer) -> None:
    settings = json.loads((home / "settings.json").read_text())  # ten minutes: the countdown reads "10 min left"
    (home / "settings.json").write_text(json.dumps({**settings, "questionTimeoutS": 600}))
    question = {"question": "Overwrite data.csv?", "kind": "select", "options": ["keep it", "replace it"]}
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ask", id="call-ask", arguments=question)]))
    asked = prompt("save it", lambda pilot: isinstance(pilot.app.screen, QuestionDialog))
    assert snap_compare(app_in(home), terminal_size=(100, 30), run_before=asked)


def test_the_light_theme(snap_compare: SnapCompare, home: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text=ANSWER, chunks=12)]))
    answered = prompt("how do I load data.csv?", lambda pilot: "That is **all**." in answers(pilot.app))

    async def light(pilot: Pilot[None]) -> None:
        await answered(pilot)  # type: ignore[misc]
        await pilot.press(*"/theme light", "enter")
        await until(pilot, lambda: pilot.app.theme == "textual-light")

    assert snap_compare(app_in(home), terminal_size=(100, 30), run_before=light)
