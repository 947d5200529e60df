"""The terminal app and permission modes: `/mode` and Alt+M switch the session's mode, and an approval opens the
question dialog, whose first option lets the call run."""

from __future__ import annotations

import json

import pytest
from prime_jupyter.cli.tui.screens.question import QuestionDialog
from prime_jupyter.cli.tui.widgets.message import Notice
from tui_kit import SIZE, answers, app_on, until

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


@pytest.mark.asyncio
async def test_slash_mode_switches_the_permission_mode(connection: InProcessAgentConnection) -> None:
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/mode plan", "enter")
        await until(pilot, lambda: connection.session.permission_mode == "plan")
        await pilot.press(*"/mode", "enter")  # no argument: the next mode
        await until(pilot, lambda: connection.session.permission_mode == "auto")
        await pilot.press("alt+m")  # the key: the next mode, round again after the last
        await until(pilot, lambda: connection.session.permission_mode == "ask")
        notices = lambda: [str(notice.content) for notice in app.screen.query(Notice)]  # noqa: E731
        await until(pilot, lambda: any(text.startswith("Permission mode: ask") for text in notices()))


@pytest.mark.asyncio
async def test_an_approval_is_answered_in_the_dialog(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo approved"})]),
        ScriptedTurn(blocks=[Text(text="It ran.")]),
    )
    await connection.set_permission_mode("ask")
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"run it", "enter")
        await until(pilot, lambda: isinstance(app.screen, QuestionDialog))
        assert app.screen.query_one("#question-title").content == "Allow bash?"
        await pilot.press("enter")  # the first option: allow once
        await until(pilot, lambda: "It ran." in answers(app))
        assert "approved" in json.dumps(llm.requests[1].body["messages"][-1])  # type: ignore[index]


@pytest.mark.asyncio
async def test_a_rejection_typed_in_the_dialog_carries_the_reason(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "rm -rf build"})]),
        ScriptedTurn(blocks=[Text(text="Kept it.")]),
    )
    await connection.set_permission_mode("ask")
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"clean up", "enter")
        await until(pilot, lambda: isinstance(app.screen, QuestionDialog))
        app.screen.query_one("#question-reason").focus()
        await pilot.press(*"keep the build", "enter")
        await until(pilot, lambda: "Kept it." in answers(app))
    assert 'They said: \\"keep the build\\"' in json.dumps(llm.requests[1].body["messages"][-1])  # type: ignore[index]
