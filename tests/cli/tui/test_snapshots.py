"""How the app looks: SVG snapshots (pytest-textual-snapshot) of a real session on the scripted server.

Each app opens its own in-process session on its own event loop (the snapshot runs the app) and disposes
of it as it closes. The footer shows a fixed directory; nothing on screen depends on the clock.
Update the pictures with `pytest tests/cli/tui/test_snapshots.py --snapshot-update`, and look at them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import nbformat
from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.screens.question import QuestionDialog
from prime_jupyter.cli.tui.screens.session_picker import SessionPicker
from prime_jupyter.cli.tui.screens.tree import TreeScreen
from prime_jupyter.cli.tui.widgets.editor import PromptEditor
from prime_jupyter.cli.tui.widgets.message import Notice
from prime_jupyter.cli.tui.widgets.status_footer import StatusFooter
from prime_jupyter.cli.tui.widgets.tool_card import ToolCard
from textual.pilot import Pilot
from textual.widgets import Static
from tui_kit import answers, local_connection, until

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.protocol.common import SessionSummary
from prime_jupyter.runtime.factory import SessionMode
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


def app_in(home: Path, tools: list[str] | None = None, mode: SessionMode = "new") -> PrimeApp:
    async def connect() -> AgentConnection:
        return local_connection(home, tools, mode)

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


def kernel_told(pilot: Pilot[None]) -> bool:
    """The line saying what the run's code created in the kernel is shown (it comes just before the run ends)."""
    return any("Kernel: created" in str(notice.render()) for notice in pilot.app.screen.query(Notice))


def ipython_card(llm: ScriptedLLMServer) -> Callable[[Pilot[None]], object]:
    """An ipython call with 12 lines of output, a result and a traceback; done when its answer is in."""
    code = "for i in range(12):\n    print('line', i)\n{'rows': 3}\n1/0"
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", id="call-1", arguments={"code": code})]),
        ScriptedTurn(blocks=[Text(text="It divided by zero.")]),
    )

    def card_done(pilot: Pilot[None]) -> bool:
        answered = "It divided by zero." in answers(pilot.app) and bool(pilot.app.screen.query(ToolCard))
        return answered and kernel_told(pilot)  # the run's last line: what its code made (`i`)

    return prompt("run it", card_done)


def test_an_ipython_card_collapsed(snap_compare: SnapCompare, home: Path, llm: ScriptedLLMServer) -> None:
    assert snap_compare(app_in(home, ["ipython"]), terminal_size=(100, 40), run_before=ipython_card(llm))


def test_an_ipython_card_expanded(snap_compare: SnapCompare, home: Path, llm: ScriptedLLMServer) -> None:
    shown = ipython_card(llm)

    async def expanded(pilot: Pilot[None]) -> None:
        await shown(pilot)  # type: ignore[misc]
        card = pilot.app.screen.query_one(ToolCard)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: card.expanded)

    assert snap_compare(app_in(home, ["ipython"]), terminal_size=(100, 50), run_before=expanded)


def test_the_session_picker(snap_compare: SnapCompare, home: Path) -> None:
    now = 1_780_000_000_000
    hour = 3_600_000

    def summary(sid: str, first: str, cwd: str, hours: int, count: int, name: str | None = None) -> SessionSummary:
        return SessionSummary(
            session_id=sid,
            title=name or first,
            name=name,
            cwd=cwd,
            created_at=now - (hours + 5) * hour,
            updated_at=now - hours * hour,
            status="saved",
            message_count=count,
            first_message=first,
        )

    sessions = [
        summary("0196-aaaa", "load the sales data", "/home/ada/sales", 2, 12),
        summary("0196-bbbb", "draft the quarterly report from report.ipynb", "/home/ada/sales", 26, 40, "quarterly"),
        summary("0196-cccc", "fix the report's plot", "/home/ada/plots", 200, 3),
    ]

    async def picking(pilot: Pilot[None]) -> None:
        await connected(pilot)
        pilot.app.push_screen(SessionPicker(sessions, "0196-bbbb", now_ms=now))
        await until(pilot, lambda: isinstance(pilot.app.screen, SessionPicker))
        await pilot.press(*"report")

    assert snap_compare(app_in(home), terminal_size=(100, 30), run_before=picking)


def test_the_session_tree(snap_compare: SnapCompare, home: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(*(ScriptedTurn(blocks=[Text(text=answer)]) for answer in ("a1", "a2", "b2")))
    asyncio.run(branched_session(home))

    async def open_tree(pilot: Pilot[None]) -> None:
        await connected(pilot)
        await pilot.press(*"/tree", "enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, TreeScreen) and bool(pilot.app.screen.rows))

    assert snap_compare(app_in(home, mode="continue"), terminal_size=(100, 30), run_before=open_tree)


async def branched_session(home: Path) -> None:
    """first → a1 → second → a2, and from a1 another way → b2 (the leaf); "first" labelled."""
    connection = local_connection(home)
    try:
        for text in ("first", "second"):
            await connection.prompt(text)
            await connection.wait_for_idle()
        messages = await connection.get_messages()
        await connection.set_label(messages.entry_ids[0], "the start")
        await connection.navigate_tree(messages.entry_ids[1])
        await connection.prompt("another way")
        await connection.wait_for_idle()
    finally:
        await connection.dispose()


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


def test_a_notebook_edited_and_run_on_disk_and_what_the_kernel_gained(
    snap_compare: SnapCompare, home: Path, llm: ScriptedLLMServer
) -> None:
    """A `notebook_edit` card (the replaced cell's lines), a `notebook_run` of the notebook on disk, and the
    line saying what the run's `ipython` code created."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("rows = list(range(5))\nrows[:2]", id="load")])
    nbformat.write(notebook, home.parent / "work" / "report.ipynb")
    change = {"action": "replace", "cell_id": "load", "source": "rows = list(range(5))\nlen(rows)"}
    code = "import pandas as pd\nsales = pd.DataFrame({'day': range(1203), 'orders': 0})"
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="notebook_read", id="call-1", arguments={"path": "report.ipynb"})]),
        ScriptedTurn(
            blocks=[ToolCall(name="notebook_edit", id="call-2", arguments={"path": "report.ipynb", "edits": [change]})]
        ),
        ScriptedTurn(blocks=[ToolCall(name="notebook_run", id="call-3", arguments={"path": "report.ipynb"})]),
        ScriptedTurn(blocks=[ToolCall(name="ipython", id="call-4", arguments={"code": code})]),
        ScriptedTurn(blocks=[Text(text="Counted the rows and loaded the sales.")]),
    )

    def done(pilot: Pilot[None]) -> bool:
        cards = pilot.app.screen.query(ToolCard)
        drawn = len(cards) == 4 and all(str(card.query_one(".tool-header", Static).render()) for card in cards)
        return "Counted the rows" in answers(pilot.app) and kernel_told(pilot) and drawn  # every card drawn

    app = app_in(home, ["ipython", "notebook_read", "notebook_edit", "notebook_run"])
    assert snap_compare(app, terminal_size=(100, 50), run_before=prompt("count the rows", done))
    saved = nbformat.read(home.parent / "work" / "report.ipynb", as_version=4)
    assert saved.cells[0].outputs[0]["data"]["text/plain"] == "5"  # run on disk, outputs in the file


def test_an_approval_dialog(snap_compare: SnapCompare, home: Path, llm: ScriptedLLMServer) -> None:
    """A bash call in `ask` mode: the command, Allow once / Allow always / Reject, and no countdown."""
    settings = json.loads((home / "settings.json").read_text())
    (home / "settings.json").write_text(json.dumps({**settings, "permissionMode": "ask"}))
    command = {"command": "rm -rf build && make"}
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="bash", id="call-bash", arguments=command)]))
    asked = prompt("rebuild it", lambda pilot: isinstance(pilot.app.screen, QuestionDialog))
    assert snap_compare(app_in(home, ["bash"]), terminal_size=(100, 30), run_before=asked)
