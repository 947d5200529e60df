"""Images of an ipython card: a real kernel displays a real PNG; the card draws it inline when the app has
a way to (`textual-image`), shows the placeholder with its size either way, and saves and opens it."""

from __future__ import annotations

import io
import os
import stat
import struct
import tempfile
from pathlib import Path

import pytest
from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.images import graphics_terminal
from prime_jupyter.cli.tui.widgets.tool_card import ToolCard
from textual_image.widget import UnicodeImage
from tui_kit import SIZE, answers, card_text, local_connection, until

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

CODE = (
    "from PIL import Image\nfrom IPython.display import display\n"
    "display(Image.new('RGB', (64, 32), (200, 30, 30)))\nprint('drawn')"
)


def unicode_image(data: bytes) -> UnicodeImage:
    return UnicodeImage(io.BytesIO(data), classes="card-image")


def app_with(connection: AgentConnection, inline: bool) -> PrimeApp:
    async def connect() -> AgentConnection:
        return connection

    return PrimeApp(connect, cwd_label="~/work", inline_images=unicode_image if inline else None)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("inline", [True, False], ids=["inline", "placeholder"])
@pytest.mark.asyncio
async def test_an_ipython_card_shows_saves_and_opens_its_image(
    home: Path, llm: ScriptedLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inline: bool
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # where `s` saves: the system's temp dir
    (tmp_path / "tmp").mkdir()
    viewer = tmp_path / "bin" / "xdg-open"  # the system's viewer: a script that says what it was given
    viewer.parent.mkdir()
    viewer.write_text(f'#!/bin/sh\necho "$1" >> {tmp_path / "opened.txt"}\n')
    viewer.chmod(viewer.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{viewer.parent}{os.pathsep}{os.environ['PATH']}")
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", id="call-img", arguments={"code": CODE})]),
        ScriptedTurn(blocks=[Text(text="A red box.")]),
    )
    connection = local_connection(home, tools=["ipython"])
    try:
        app = app_with(connection, inline)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"draw", "enter")
            await until(pilot, lambda: "A red box." in answers(app), within=60)
            card = app.screen.query_one(ToolCard)
            assert "[image/png 64x32," in card_text(card) and "drawn" in card_text(card)
            assert [mime for mime, _ in card.images] == ["image/png"] and png_size(card.images[0][1]) == (64, 32)
            await until(pilot, lambda: len(card.query(UnicodeImage)) == (1 if inline else 0))
            card.focus()
            await pilot.press("s")
            saved = tmp_path / "tmp" / "prime-images" / "call-img-1.png"
            await until(pilot, lambda: saved.exists())
            assert png_size(saved.read_bytes()) == (64, 32)
            await until(pilot, lambda: any(f"Saved {saved}" in str(n.message) for n in app._notifications))
            await pilot.press("o")
            opened = tmp_path / "opened.txt"
            await until(pilot, lambda: opened.exists())
            assert opened.read_text().strip() == str(saved)
    finally:
        await connection.dispose()


def test_only_terminals_known_to_draw_images_are_asked() -> None:
    assert graphics_terminal({"TERM": "xterm-kitty"}) and graphics_terminal({"TERM_PROGRAM": "WezTerm"})
    assert graphics_terminal({"TERM": "xterm-256color", "KONSOLE_VERSION": "230800"})
    assert not graphics_terminal({"TERM": "xterm-256color", "TERM_PROGRAM": "Apple_Terminal"})
    assert not graphics_terminal({"TERM": "tmux-256color"})
