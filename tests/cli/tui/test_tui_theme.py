"""`/theme`: the chosen theme is kept in the agent's settings and used at the next launch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prime_jupyter.cli.tui.app import PrimeApp
from test_snapshots import ANSWER, SnapCompare, connected
from textual.pilot import Pilot
from tui_kit import SIZE, answers, local_connection, until

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.connection.preferences import read_preference, write_preference
from prime_jupyter.errors import ConfigError
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text


@pytest.mark.asyncio
async def test_the_chosen_theme_is_kept_in_the_settings_for_the_next_launch(
    connection: InProcessAgentConnection, tmp_path: Path
) -> None:
    settings = tmp_path / "agent-home" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"defaultModel": "m1", "retry": {"maxRetries": 1}}))

    def launched(theme: str | None) -> PrimeApp:
        async def connect() -> AgentConnection:
            return connection

        return PrimeApp(connect, cwd_label="~/work", theme=theme, settings_file=settings)

    app = launched(None)
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "textual-dark"
        await pilot.press(*"/theme light", "enter")
        await until(pilot, lambda: "textual-light" in settings.read_text())
        assert app.theme == "textual-light"
    kept = json.loads(settings.read_text())
    assert kept == {"defaultModel": "m1", "retry": {"maxRetries": 1}, "theme": "textual-light"}
    assert read_preference(settings, "theme") == "textual-light"
    again = launched(str(read_preference(settings, "theme")))
    async with again.run_test(size=SIZE):
        assert again.theme == "textual-light" and not again.current_theme.dark


def test_a_settings_file_that_is_not_json_is_left_alone(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text("{ not json")
    with pytest.raises(ConfigError, match="is not valid JSON"):
        write_preference(settings, "theme", "textual-light")
    assert settings.read_text() == "{ not json"


def test_the_dark_theme(snap_compare: SnapCompare, home: Path, llm: ScriptedLLMServer, tmp_path: Path) -> None:
    """Launched light (as kept in the settings), switched to dark with `/theme dark`: an answer with code."""
    llm.enqueue(ScriptedTurn(blocks=[Text(text=ANSWER, chunks=12)]))
    settings = tmp_path / "settings.json"

    async def connect() -> AgentConnection:
        return local_connection(home)

    app = PrimeApp(connect, cwd_label="~/work", owns_connection=True, theme="textual-light", settings_file=settings)

    async def dark(pilot: Pilot[None]) -> None:
        await connected(pilot)
        await pilot.press(*"how do I load data.csv?", "enter")
        await until(pilot, lambda: "That is **all**." in answers(pilot.app), within=60)
        await pilot.press(*"/theme dark", "enter")
        await until(pilot, lambda: pilot.app.theme == "textual-dark" and settings.exists())

    assert snap_compare(app, terminal_size=(100, 30), run_before=dark)
