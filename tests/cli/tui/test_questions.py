"""Questions from the `ask` tool open a dialog; an answer given elsewhere closes it."""

from __future__ import annotations

import json

import pytest
from prime_jupyter.cli.tui.screens.question import QuestionDialog
from tui_kit import SIZE, answers, app_on, until

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.protocol.questions import ConfirmAnswer
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


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
        result = json.dumps(llm.requests[1].body)
        assert "yes" in result.lower() or "confirmed" in result.lower()


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
        assert "replace" in json.dumps(llm.requests[1].body)


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
