"""Questions from the `ask` tool open a dialog; an answer given elsewhere closes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prime_jupyter.cli.tui.screens.question import QuestionDialog, time_left
from prime_jupyter.cli.tui.widgets.message import Notice
from prime_jupyter.cli.tui.widgets.tool_card import ToolCard
from textual.widgets import Static
from tui_kit import SIZE, answers, app_on, card_text, local_connection, until

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.protocol.questions import ConfirmAnswer
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.tools.ask import USER_NOTES


def ask(kind: str, **arguments: object) -> ScriptedTurn:
    return ScriptedTurn(
        blocks=[ToolCall(name="ask", arguments={"question": "Overwrite data.csv?", "kind": kind, **arguments})]
    )


@pytest.mark.asyncio
async def test_a_confirm_question_is_answered_in_the_dialog(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ask("confirm"), ScriptedTurn(blocks=[Text(text="Overwritten.")]))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"save it", "enter")
        await until(pilot, lambda: isinstance(app.screen, QuestionDialog))
        assert app.screen.query_one("#question-title").content == "Overwrite data.csv?"
        await pilot.press("y")
        await until(pilot, lambda: "Overwritten." in answers(app))
        assert not isinstance(app.screen, QuestionDialog)
        assert "The user answered: yes" in json.dumps(llm.requests[1].body)


@pytest.mark.asyncio
async def test_a_select_question_is_answered_with_the_arrows(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ask("select", options=["keep", "replace"]), ScriptedTurn(blocks=[Text(text="Done.")]))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"save it", "enter")
        await until(pilot, lambda: isinstance(app.screen, QuestionDialog))
        await pilot.press("down", "enter")
        await until(pilot, lambda: "Done." in answers(app))
        assert "The user chose: replace" in json.dumps(llm.requests[1].body)


@pytest.mark.asyncio
async def test_an_answer_from_another_surface_closes_the_dialog(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ask("confirm"), ScriptedTurn(blocks=[Text(text="Kept it.")]))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"save it", "enter")
        await until(pilot, lambda: isinstance(app.screen, QuestionDialog))
        dialog = app.screen
        assert isinstance(dialog, QuestionDialog)
        assert await connection.answer_question(dialog.question.id, ConfirmAnswer(confirmed=False))
        await until(pilot, lambda: not isinstance(app.screen, QuestionDialog))
        await until(pilot, lambda: "Kept it." in answers(app))
        assert "The user answered: no" in json.dumps(llm.requests[1].body)


@pytest.mark.asyncio
async def test_a_multiple_choice_and_a_typed_answer(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(
        ask("select", options=["a.csv", "b.csv", "c.csv"], multiple=True),
        ask("input"),
        ScriptedTurn(blocks=[Text(text="Both answered.")]),
    )
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: isinstance(app.screen, QuestionDialog))
        first = app.screen
        await pilot.press("space", "down", "down", "space", "enter")
        await until(pilot, lambda: isinstance(app.screen, QuestionDialog) and app.screen is not first)
        await pilot.press(*"keep both", "enter")
        await until(pilot, lambda: "Both answered." in answers(app))
        assert "The user chose: a.csv; c.csv" in json.dumps(llm.requests[1].body)
        assert "The user answered: keep both" in json.dumps(llm.requests[2].body)


@pytest.mark.asyncio
async def test_a_question_that_times_out_says_so_in_words_for_the_user(home: Path, llm: ScriptedLLMServer) -> None:
    """Issue 17: the card showed the text written for the model ("Decide sensibly or ask again later")."""
    settings = json.loads((home / "settings.json").read_text())
    (home / "settings.json").write_text(json.dumps({**settings, "questionTimeoutS": 0.5}))
    llm.enqueue(ask("confirm"), ScriptedTurn(blocks=[Text(text="Left it as it was.")]))
    connection = local_connection(home)
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"save it", "enter")
        await until(pilot, lambda: "Left it as it was." in answers(app))
        shown = card_text(app.screen.query_one(ToolCard))
        assert USER_NOTES["timeout"] in " ".join(shown.split()) and "Decide sensibly" not in shown
        assert "The user did not answer (the question timed out)" in json.dumps(llm.requests[1].body)
    await connection.dispose()


@pytest.mark.asyncio
async def test_the_dialog_rings_counts_down_and_closes_when_the_time_is_up(
    home: Path, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = json.loads((home / "settings.json").read_text())
    (home / "settings.json").write_text(json.dumps({**settings, "questionTimeoutS": 3}))
    llm.enqueue(ask("confirm"), ScriptedTurn(blocks=[Text(text="I kept it.")]))
    connection = local_connection(home)
    try:
        app = app_on(connection)
        rings: list[str] = []
        monkeypatch.setattr(app, "bell", lambda: rings.append(type(app.screen).__name__))  # the terminal's bell
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"save it", "enter")
            await until(
                pilot, lambda: isinstance(app.screen, QuestionDialog) and bool(app.screen.query("#question-time"))
            )
            assert rings == ["ChatScreen"]  # rung as the question came, before its dialog opened
            left = lambda: str(app.screen.query_one("#question-time", Static).content)  # noqa: E731
            first = left()
            assert first in ("3 s left", "2 s left")
            await until(pilot, lambda: not isinstance(app.screen, QuestionDialog) or left() != first)
            await until(pilot, lambda: "I kept it." in answers(app))
            assert not isinstance(app.screen, QuestionDialog)
            notices = [str(n.content) for n in app.screen.query(Notice)]
            said = "Nobody answered “Overwrite data.csv?” within 3 s, so the agent went on without an answer."
            assert notices.count(said) == 1
            assert "dismissed or timed out" not in " ".join(notices)  # the words meant for the model stay there
        assert "The user did not answer" in json.dumps(llm.requests[1].body)
    finally:
        await connection.dispose()


def test_the_time_left_reads_in_seconds_then_minutes() -> None:
    assert time_left(42.2) == "43 s left" and time_left(0.4) == "1 s left" and time_left(-3) == "0 s left"
    assert time_left(120) == "120 s left" and time_left(180) == "3 min left" and time_left(599.5) == "10 min left"


def test_the_minutes_left_are_rounded_to_the_nearest_not_up() -> None:
    """Regression: 121 s read "3 min left" (the minutes were rounded up)."""
    assert time_left(121) == "2 min left" and time_left(149) == "2 min left" and time_left(151) == "3 min left"
