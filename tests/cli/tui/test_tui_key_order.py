"""Keys that come in a burst are applied in the order they were typed, editing keys included.

A terminal delivers keys in bursts when the app is busy (an answer streaming) or when they are sent
together (a paste the terminal does not bracket, tmux): the driver posts them to the app one after the
other without the app running in between, which is what these tests do. Textual ran a bound key's
action (Backspace, an arrow, Ctrl+U) only after the next characters were inserted (`widgets/key_order.py`).
"""

from __future__ import annotations

import pytest
from prime_jupyter.cli.tui.widgets.editor import PromptEditor
from prime_jupyter.cli.tui.widgets.key_order import OrderedInput
from textual import events
from textual.app import App, ComposeResult
from tui_kit import SIZE, app_on, until

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text


def burst(app: App[None], *keys: str) -> None:
    """Post `keys` to the app at once, as the driver does with the keys of one read."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


@pytest.mark.asyncio
async def test_editing_keys_in_a_burst_apply_in_order_while_an_answer_streams(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="word " * 2000, chunks=2000)], chunk_delay_s=0.002))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        editor = app.screen.query_one(PromptEditor)
        await pilot.press(*"write a lot", "enter")
        await until(pilot, lambda: app.screen.query(".answer") and editor.text == "")
        burst(app, *"abc", "backspace", *"xyz")
        await until(pilot, lambda: len(editor.text) >= 5)
        assert editor.text == "abxyz"
        burst(app, "left", "left", "q", "home", "w")
        await until(pilot, lambda: len(editor.text) >= 7)
        assert editor.text == "wabxqyz"
        burst(app, "end", "ctrl+u", *"new")
        await until(pilot, lambda: editor.text in ("new", ""))
        await pilot.pause(0.1)
        assert editor.text == "new"
        burst(app, "ctrl+w", *"one two", "ctrl+w", "ctrl+w", *"three")
        await until(pilot, lambda: "three" in editor.text or editor.text == "")
        await pilot.pause(0.1)
        assert editor.text == "three"


class _Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.submitted: list[str] = []

    def compose(self) -> ComposeResult:
        yield OrderedInput(id="field")

    def on_input_submitted(self, event: OrderedInput.Submitted) -> None:
        self.submitted.append(event.value)


@pytest.mark.asyncio
async def test_a_one_line_input_applies_a_burst_in_order_and_submits_in_its_turn() -> None:
    app = _Host()
    async with app.run_test() as pilot:
        field = app.query_one(OrderedInput)
        burst(app, *"abc", "backspace", *"xy", "home", "q", "enter", "end", "ctrl+u", *"next")
        await pilot.pause(0.1)
        assert app.submitted == ["qabxy"]
        assert field.value == "next"
