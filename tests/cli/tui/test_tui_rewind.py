"""`/rewind` in the terminal app: pick a message, the agent's file change since is undone, the conversation
goes back to before it and the message comes back into the editor, with the report shown. Driven by Pilot
on a real in-process session on the scripted LLM server."""

from __future__ import annotations

from pathlib import Path

import pytest
from nav_kit import user_messages
from prime_jupyter.cli.tui.screens.fork_picker import ForkPicker
from prime_jupyter.cli.tui.widgets.editor import PromptEditor
from tui_kit import SIZE, answers, app_on, local_connection, until

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


@pytest.mark.asyncio
async def test_rewind_undoes_the_file_change_and_puts_the_message_back(home: Path, llm: ScriptedLLMServer) -> None:
    work = home.parent / "work"
    (work / "plan.txt").write_text("v1\n")
    connection = local_connection(home, tools=["write", "read"])
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            llm.enqueue(ScriptedTurn(blocks=[Text(text="a1")]))
            await pilot.press(*"first", "enter")
            await until(pilot, lambda: "a1" in answers(app))
            write = ToolCall(name="write", arguments={"path": "plan.txt", "content": "v2\n"})
            llm.enqueue(ScriptedTurn(blocks=[write]))
            llm.enqueue(ScriptedTurn(blocks=[Text(text="wrote v2")]))
            await pilot.press(*"second", "enter")
            await until(pilot, lambda: "wrote v2" in answers(app) and not connection.session.is_running)
            assert (work / "plan.txt").read_text() == "v2\n"

            await pilot.press(*"/rewind", "enter")
            await until(pilot, lambda: isinstance(app.screen, ForkPicker))
            await pilot.press("enter")  # the newest message is the one highlighted

            editor = app.screen.query_one(PromptEditor)
            await until(pilot, lambda: editor.text == "second" and user_messages(app) == ["first"])
            assert (work / "plan.txt").read_text() == "v1\n"
            told = lambda: [str(n.message) for n in app._notifications]  # noqa: E731
            await until(pilot, lambda: any(text.startswith("Rewound: restored plan.txt.") for text in told()))
    finally:
        await connection.dispose()
