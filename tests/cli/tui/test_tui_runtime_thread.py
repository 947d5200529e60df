"""The app as `jupyter prime` starts it: the in-process session on a loop of its own, in a thread
(`LocalStart`, `runtime_thread.py`). Streaming, a kernel's tool, a question, a replaced session and the
exit all cross between the two loops."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from prime_jupyter.cli.args import build_parser
from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.launch import LocalStart
from prime_jupyter.cli.tui.screens.question import QuestionDialog
from prime_jupyter.cli.tui.widgets.message import UserMessageView
from prime_jupyter.cli.tui.widgets.tool_card import ToolCard
from tui_kit import SIZE, answers, card_text, until

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


def threads() -> set[str]:
    return {t.name for t in threading.enumerate()}


@pytest.mark.asyncio
async def test_the_session_runs_on_its_own_loop_and_the_app_drives_it(
    home: Path, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRIME_AGENT_DIR", str(home))
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="a long answer " * 200, chunks=400)]),
        ScriptedTurn(blocks=[ToolCall(name="ipython", id="call-1", arguments={"code": "print(6 * 7)"})]),
        ScriptedTurn(blocks=[ToolCall(name="ask", arguments={"question": "Overwrite data.csv?", "kind": "confirm"})]),
        ScriptedTurn(blocks=[Text(text="Overwritten.")]),
    )
    args = vars(build_parser().parse_args(["--tools", "ipython"]))
    start = LocalStart(args, home.parent / "work")
    app = PrimeApp(start.open, cwd_label="~/work")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"stream", "enter")
        await until(pilot, lambda: answers(app).count("a long answer") == 200, within=30)
        assert "prime-session" in threads()
        await pilot.press(*"compute", "enter")
        await until(pilot, lambda: isinstance(app.screen, QuestionDialog), within=60)
        await pilot.press("y")
        await until(pilot, lambda: "Overwritten." in answers(app))
        assert "42" in card_text(app.screen.query(ToolCard).first())
        await pilot.press(*"/new", "enter")
        await until(pilot, lambda: not app.screen.query(UserMessageView))
        assert app.connection is not None
        state = await app.connection.get_state()
        assert state.model is not None and state.model.id == "m1" and not state.is_streaming
    assert app.connection is not None
    await app.connection.dispose()
    await asyncio.sleep(0)
    assert "prime-session" not in threads()
