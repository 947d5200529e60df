"""How `jupyter prime` opens the app: only on a terminal, and on the session its arguments name."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest
from prime_jupyter.cli.args import build_parser
from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.connect import open_local
from prime_jupyter.cli.tui.launch import cwd_label, wants_app
from prime_jupyter.cli.tui.widgets.editor import PromptEditor
from prime_jupyter.cli.tui.widgets.message import Notice
from tui_kit import SIZE, answers, local_connection, until

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.errors import PrimeError
from prime_jupyter.runtime.factory import SessionOptions
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text


def test_the_app_opens_only_on_a_terminal_without_print_or_json(monkeypatch: pytest.MonkeyPatch) -> None:
    leader, follower = os.openpty()  # a real terminal for standard input and output
    with open(follower, "w", closefd=True) as tty, open(leader, "rb", closefd=True):
        monkeypatch.setattr(sys, "stdin", tty)
        monkeypatch.setattr(sys, "stdout", tty)
        assert wants_app(False, "text")
        assert not wants_app(True, "text") and not wants_app(False, "json")
        monkeypatch.setattr(sys, "stdin", io.StringIO("piped"))
        assert not wants_app(False, "text")


def test_the_footer_names_the_home_directory_with_a_tilde() -> None:
    assert cwd_label(Path.home() / "project") == "~/project" and cwd_label(Path("/srv/x")) == "/srv/x"


@pytest.mark.asyncio
async def test_continue_opens_the_latest_session_with_its_conversation(
    home: Path, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="the answer before")]))
    earlier = local_connection(home)
    await earlier.prompt("the question before")
    await earlier.wait_for_idle()
    await earlier.dispose()
    monkeypatch.setenv("PRIME_AGENT_DIR", str(home))
    args = vars(build_parser().parse_args(["-c", "--tools", "bash"]))
    app = PrimeApp(lambda: open_local(args, home.parent / "work"), cwd_label="~/work", owns_connection=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "the answer before" in answers(app))
        assert app.connection is not None
        state = await app.connection.get_state()
        assert state.model is not None and state.model.id == "m1"


@pytest.mark.asyncio
async def test_a_session_that_cannot_be_opened_ends_the_app_with_the_reason() -> None:
    async def connect() -> AgentConnection:
        raise PrimeError("no API key for provider 'anthropic': set ANTHROPIC_API_KEY")

    app = PrimeApp(connect, cwd_label="~/work")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.failure is not None)
    assert app.failure is not None and "ANTHROPIC_API_KEY" in app.failure


@pytest.mark.asyncio
async def test_ctrl_c_clears_the_editor(home: Path) -> None:
    connection = local_connection(home)
    try:
        app = PrimeApp(lambda: _ready(connection), cwd_label="~/work")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"half a thought", "ctrl+c")
            assert app.screen.query_one(PromptEditor).text == ""
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_ctrl_c_twice_on_an_empty_editor_quits(home: Path) -> None:
    connection = local_connection(home)
    try:
        app = PrimeApp(lambda: _ready(connection), cwd_label="~/work")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("ctrl+c")
            await pilot.pause(0.2)
            assert app.is_running  # the first one only says that a second one quits
            await pilot.press("ctrl+c")
            await until(pilot, lambda: not app.is_running)
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_ctrl_d_deletes_in_the_editor_and_quits_on_an_empty_one(home: Path) -> None:
    connection = local_connection(home)
    try:
        app = PrimeApp(lambda: _ready(connection), cwd_label="~/work")
        async with app.run_test(size=SIZE) as pilot:
            editor = app.screen.query_one(PromptEditor)
            await pilot.press(*"abc", "left", "left", "ctrl+d")
            assert editor.text == "ac" and app.is_running
            await pilot.press("ctrl+a", "ctrl+k", "ctrl+d")
            await until(pilot, lambda: not app.is_running)
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_a_new_session_shows_the_keys_and_warns_of_a_model_without_a_key(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    work = home.parent / "work"
    options = SessionOptions(cwd=work, model="anthropic/claude-sonnet-5-5", agent_dir=home, interactive=True)
    connection = InProcessAgentConnection.create(options)
    try:
        app = PrimeApp(lambda: _ready(connection), cwd_label="~/work")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: len(app.screen.query(Notice)) == 2)
            first, second = (str(n.content) for n in app.screen.query(Notice))
            assert "/ commands" in first and "/hotkeys" in first
            assert second.startswith("anthropic/claude-sonnet-5-5 has no API key: set one (ANTHROPIC_API_KEY")
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_a_model_with_its_key_gets_no_warning(home: Path) -> None:
    connection = local_connection(home)
    try:
        app = PrimeApp(lambda: _ready(connection), cwd_label="~/work")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: bool(app.screen.query(Notice)))
            await pilot.pause(0.2)
            assert [n.level for n in app.screen.query(Notice)] == ["info"]
    finally:
        await connection.dispose()


async def _ready(connection: AgentConnection) -> AgentConnection:
    return connection
