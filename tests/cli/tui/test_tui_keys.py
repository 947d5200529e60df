"""Nothing typed is lost: keys typed without waiting for their echo, as a terminal sends them, all reach
the editor in order, while the chat replaces the boot screen and while a long answer streams.

The app is started as `jupyter prime` starts it (the boot screen, the session on a loop of its own). Keys
are posted to the app the way its driver posts them, several at a time, never waiting for one to be
handled before the next (Pilot's `press` waits for the app to be idle after each key, which hides a key
lost in flight). What reached the editor is checked against what the keys make, letter by letter: every
key arrived, in order. Nothing here is timed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from prime_jupyter.cli.args import build_parser
from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.launch import LocalStart
from prime_jupyter.cli.tui.screens.boot import BootScreen
from prime_jupyter.cli.tui.screens.chat import ChatScreen
from textual import events
from textual.pilot import Pilot
from tui_kit import SIZE, answers, until

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

LONG_ANSWER = "x" * 2000


class Typist:
    """Types keys into the app as its driver hands them over: posted at once, several per turn of the loop."""

    def __init__(self, app: PrimeApp) -> None:
        self.app = app
        self.typed: list[str] = []

    def type(self, *keys: str) -> None:
        for key in keys:
            character = {"space": " ", "enter": "\r", "backspace": "\x7f"}.get(key, key)
            self.app.post_message(events.Key(key, character))
            self.typed.append(key)

    async def type_until(self, done: Callable[[], bool], then: int, per_turn: int = 3, gap: float = 0.002) -> None:
        """Type `per_turn` keys of the pattern, then let the app run for `gap` seconds, until `done()`; then
        `then` keys more."""
        left = then
        while left > 0:
            self.type(*(pattern(len(self.typed) + i) for i in range(per_turn)))
            if done():
                left -= per_turn
            await asyncio.sleep(gap)

    def made(self) -> tuple[list[str], str]:
        """What the keys typed make: the prompts sent (on Enter) and the text left in the editor."""
        sent: list[str] = []
        text: list[str] = []
        for key in self.typed:
            if key == "backspace":
                text = text[:-1]
            elif key == "enter":
                sent.append("".join(text))
                text = []
            else:
                text.append(" " if key == "space" else key)
        return sent, "".join(text)


def pattern(index: int) -> str:
    """The `index`th key typed: letters in turn (so that their order shows), a space and a Backspace now and then."""
    if index % 11 == 10:
        return "backspace"
    if index % 7 == 6:
        return "space"
    return chr(ord("a") + index % 26)


def launched(home: Path) -> PrimeApp:
    """The app as `jupyter prime` opens it (`launch.py`): the boot screen first, the session in a thread."""
    start = LocalStart(vars(build_parser().parse_args([])), home.parent / "work")
    return PrimeApp(start.open, cwd_label="~/work", boot=True, owns_connection=True)  # its thread ends with it


def chat(pilot: Pilot[None]) -> ChatScreen | None:
    screen = pilot.app.screen
    return screen if isinstance(screen, ChatScreen) else None


@pytest.mark.asyncio
async def test_keys_typed_as_the_chat_replaces_the_boot_screen_all_reach_its_editor(
    home: Path, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a key handed to the boot screen's editor just before the swap was left there (the draft
    had been read without it): 2 of 25 runs of `benchmarks/bench_tui.py` lost one."""
    monkeypatch.setenv("PRIME_AGENT_DIR", str(home))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="Got it.")]))
    app = launched(home)
    async with app.run_test(size=SIZE) as pilot:
        typist = Typist(app)
        assert isinstance(app.screen, BootScreen), "the chat came before the first key: the swap is not exercised"
        typist.type(*"early", "enter")  # sent before the chat is there: it goes once the session is open
        await typist.type_until(lambda: chat(pilot) is not None, then=300, per_turn=20, gap=0)
        screen = chat(pilot)
        assert screen is not None
        await until(pilot, lambda: "Got it." in answers(app))
        await pilot.pause()
        sent, draft = typist.made()
        assert screen.editor.text == draft
    assert sent == ["early"] and "early" in str(llm.requests[0].body)


@pytest.mark.asyncio
async def test_keys_typed_while_a_long_answer_streams_all_reach_the_editor(
    home: Path, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From Enter until after the answer has ended: as it starts (its message mounted), as it streams and as
    it ends (its text given to the Markdown whole, the footer updated); Backspaces among them, which must
    apply in their turn (`widgets/key_order.py`)."""
    monkeypatch.setenv("PRIME_AGENT_DIR", str(home))
    llm.enqueue(ScriptedTurn(blocks=[Text(text=LONG_ANSWER, chunks=len(LONG_ANSWER))], chunk_delay_s=0.0005))
    app = launched(home)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: (screen := chat(pilot)) is not None and screen.connection is not None)
        screen = chat(pilot)
        assert screen is not None
        typist = Typist(app)
        typist.type(*"stream", "enter")
        await typist.type_until(lambda: answers(app) == LONG_ANSWER and not screen.feed.running, then=150, gap=0.02)
        await pilot.pause()
        sent, draft = typist.made()
        assert screen.editor.text == draft
    assert sent == ["stream"] and len(typist.typed) > 300


@pytest.mark.asyncio
async def test_prompts_sent_as_the_chat_replaces_the_boot_screen_all_go_once_in_order(
    home: Path, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Prompts are typed until the chat is there and a few after, each a word that shows its place; every
    one reaches the model once, in order, whether the boot screen, the chat before its session opens, or
    the chat after took it. (It does not pin the Enter-just-before-the-swap window of `BootScreen.settle`.)"""
    monkeypatch.setenv("PRIME_AGENT_DIR", str(home))
    answer = ScriptedTurn(blocks=[Text(text="Got it.", chunks=2)])
    app = launched(home)
    words: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        typist = Typist(app)
        assert isinstance(app.screen, BootScreen), "the chat came before the first key: the swap is not exercised"
        after = 0
        while after < 3:
            word = f"q{len(words):04d}"
            llm.enqueue(answer)  # a prompt asks for one answer at most
            typist.type(*word, "enter")
            words.append(word)
            after += chat(pilot) is not None
            await asyncio.sleep(0.01)
        screen = chat(pilot)
        assert screen is not None
        await until(pilot, lambda: bool(llm.requests) and words[-1] in str(llm.requests[-1].body))
        await until(pilot, lambda: not screen.feed.running)
        assert screen.editor.text == ""
    body = str(llm.requests[-1].body)
    places = [body.find(word) for word in words]
    assert -1 not in places and places == sorted(places), "a prompt was lost or went out of order"
    assert all(body.count(word) == 1 for word in words), "a prompt went twice"
