"""The chat, driven by Pilot against a real in-process session on the scripted LLM server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prime_jupyter.cli.tui.app import PrimeApp
from prime_jupyter.cli.tui.widgets.editor import PromptEditor
from prime_jupyter.cli.tui.widgets.message import Notice, UserMessageView
from prime_jupyter.cli.tui.widgets.queue_view import QueueView
from prime_jupyter.cli.tui.widgets.tool_card import ToolCard
from tui_kit import SIZE, answers, app_on, card_text, local_connection, until

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.testing import HttpError, ScriptedLLMServer, ScriptedTurn, Text, Thinking, ToolCall


def sent(llm: ScriptedLLMServer, index: int) -> str:
    return json.dumps(llm.requests[index].body)


@pytest.mark.asyncio
async def test_a_prompt_streams_its_answer(connection: InProcessAgentConnection, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="The answer is **42**.", chunks=6)]))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"what is it?", "enter")
        await until(pilot, lambda: "The answer is **42**." in answers(app))
        assert [str(u.content) for u in app.screen.query(UserMessageView)] == ["what is it?"]
        assert app.screen.query_one(PromptEditor).text == ""


@pytest.mark.asyncio
async def test_the_first_prompt_can_be_typed_before_the_session_is_open(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="from the command line")]))
    app = app_on(connection, prompt="hello from argv")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "from the command line" in answers(app))
        assert "hello from argv" in sent(llm, 0)


@pytest.mark.asyncio
async def test_an_ipython_card_shows_output_and_a_clean_traceback(home: Path, llm: ScriptedLLMServer) -> None:
    code = "print('hello from the kernel')\n{'a': 1}\n"
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", id="call-1", arguments={"code": code + "1/0"})]),
        ScriptedTurn(blocks=[Text(text="It failed.")]),
    )
    connection = local_connection(home, tools=["ipython"])
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"run it", "enter")
            await until(pilot, lambda: "It failed." in answers(app), within=60)
            card = app.screen.query_one(ToolCard)
            shown = card_text(card)
            assert card.call_id == "call-1" and card.view.status == "error"
            assert "print('hello from the kernel')" in shown and "hello from the kernel\n" in shown
            assert "ZeroDivisionError" in shown and "\x1b[" not in shown and "-" * 20 not in shown
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_long_output_is_collapsed_until_expanded(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "seq 1 30"})]),
        ScriptedTurn(blocks=[Text(text="Counted.")]),
    )
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"count", "enter")
        await until(pilot, lambda: "Counted." in answers(app))
        card = app.screen.query_one(ToolCard)
        assert "22 earlier lines" in card_text(card) and "\n30\n" in card_text(card)
        await pilot.press("ctrl+o")
        assert card.expanded and "\n1\n" in card_text(card) and "earlier lines" not in card_text(card)


@pytest.mark.asyncio
async def test_enter_steers_and_alt_enter_queues_a_follow_up(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="slow " * 100, chunks=100)], chunk_delay_s=0.05),
        ScriptedTurn(blocks=[Text(text="steered answer")]),
        ScriptedTurn(blocks=[Text(text="follow-up answer")]),
    )
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"start", "enter")
        await until(pilot, lambda: "slow" in answers(app))
        await pilot.press(*"left", "enter", *"more", "alt+enter")
        queue = app.screen.query_one(QueueView)
        await until(pilot, lambda: str(queue.content) == "steer: left\nfollow-up: more")
        await until(pilot, lambda: "follow-up answer" in answers(app), within=30)
        assert "left" in sent(llm, 1) and "more" not in sent(llm, 1)
        assert "more" in sent(llm, 2)
        await until(pilot, lambda: not queue.display)


@pytest.mark.asyncio
async def test_escape_aborts_the_run(connection: InProcessAgentConnection, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="word " * 200, chunks=200)], chunk_delay_s=0.05))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"go on forever", "enter")
        await until(pilot, lambda: "word" in answers(app))
        await pilot.press("escape")
        await until(pilot, lambda: any("Aborted" in str(n.content) for n in app.screen.query(Notice)))
        await until(pilot, lambda: not app.screen.feed.running)  # type: ignore[attr-defined]


@pytest.mark.asyncio
async def test_history_and_multi_line_prompts(connection: InProcessAgentConnection, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one")]), ScriptedTurn(blocks=[Text(text="two")]))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        editor = app.screen.query_one(PromptEditor)
        await pilot.press(*"line one", "ctrl+j", *"line two", "enter")
        await until(pilot, lambda: "one" in answers(app))
        assert "line one\\nline two" in sent(llm, 0)
        await pilot.press("up")
        assert editor.text == "line one\nline two"
        await pilot.press("down", "down")
        assert editor.text == ""


@pytest.mark.asyncio
async def test_thinking_is_collapsed_and_errors_are_shown_in_line(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    from textual.widgets import Collapsible

    llm.enqueue(
        ScriptedTurn(blocks=[Thinking(text="Let me think about it."), Text(text="Thought it through.")]),
        ScriptedTurn(blocks=[Text(text="x")], fault=HttpError(status=400, message="that request was invalid")),
    )
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"think", "enter")
        await until(pilot, lambda: "Thought it through." in answers(app))
        thinking = app.screen.query_one(Collapsible)
        assert thinking.collapsed and "Let me think about it." in str(thinking.query_one(".thinking-text").content)
        await pilot.press(*"again", "enter")
        await until(pilot, lambda: any("that request was invalid" in str(n.content) for n in app.screen.query(Notice)))


@pytest.mark.asyncio
async def test_alt_up_takes_the_last_queued_message_back(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="word " * 200, chunks=200)], chunk_delay_s=0.05))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: "word" in answers(app))
        await pilot.press(*"one", "alt+enter", *"two", "alt+enter")
        queue = app.screen.query_one(QueueView)
        await until(pilot, lambda: str(queue.content) == "follow-up: one\nfollow-up: two")
        await pilot.press("alt+up")
        await until(pilot, lambda: str(queue.content) == "follow-up: one")
        assert app.screen.query_one(PromptEditor).text == "two"
        await pilot.press("escape")
        await until(pilot, lambda: not app.screen.feed.running)  # type: ignore[attr-defined]


@pytest.mark.asyncio
async def test_copy_puts_the_last_answer_on_the_clipboard(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="Copy **me**.")]))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"hi", "enter")
        await until(pilot, lambda: "Copy **me**." in answers(app))
        await pilot.press(*"/copy", "enter")
        await until(pilot, lambda: app.clipboard == "Copy **me**.")


@pytest.mark.asyncio
async def test_scrolling_up_stops_following_and_shows_a_marker(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    from prime_jupyter.cli.tui.widgets.conversation import Conversation
    from textual.widgets import Static

    long = "\n\n".join(f"paragraph {i}" for i in range(80))
    llm.enqueue(ScriptedTurn(blocks=[Text(text=long, chunks=80)], chunk_delay_s=0.03))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.screen.query_one(Conversation)
        below = app.screen.query_one("#below", Static)
        await pilot.press(*"write a lot", "enter")
        await until(pilot, lambda: "paragraph 20" in answers(app))
        conversation.scroll_home(animate=False)
        await until(pilot, lambda: below.display)
        assert conversation.scroll_y == 0
        await pilot.press("ctrl+end")
        await until(pilot, lambda: not below.display)
        await until(pilot, lambda: "paragraph 79" in answers(app))
        await until(pilot, lambda: conversation.max_scroll_y > 0 and conversation.scroll_y == conversation.max_scroll_y)


@pytest.mark.asyncio
async def test_page_up_and_down_scroll_the_transcript_from_the_editor(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer
) -> None:
    """Issue 31 item 10: PgUp/PgDn did not scroll the transcript (and /hotkeys listed no scrolling key)."""
    from prime_jupyter.cli.tui.widgets.conversation import Conversation

    llm.enqueue(ScriptedTurn(blocks=[Text(text="\n\n".join(f"paragraph {i}" for i in range(80)))]))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.screen.query_one(Conversation)
        await pilot.press(*"write a lot", "enter")
        await until(pilot, lambda: "paragraph 79" in answers(app))
        await until(pilot, lambda: conversation.max_scroll_y > 0 and conversation.scroll_y == conversation.max_scroll_y)
        bottom = conversation.scroll_y
        await pilot.press("pageup")
        await until(pilot, lambda: conversation.scroll_y < bottom)
        assert isinstance(app.focused, PromptEditor) and conversation.scrolled_up
        await pilot.press("pagedown", "pagedown", "pagedown")
        await until(pilot, lambda: conversation.scroll_y == conversation.max_scroll_y and not conversation.scrolled_up)


@pytest.mark.asyncio
async def test_at_completes_a_file_and_attaches_it(
    connection: InProcessAgentConnection, llm: ScriptedLLMServer, home: Path
) -> None:
    from prime_jupyter.cli.tui.widgets.command_menu import CommandMenu

    (home.parent / "work" / "data").mkdir()
    (home.parent / "work" / "data" / "sales.csv").write_text("year,sales\n2024,10\n")
    llm.enqueue(ScriptedTurn(blocks=[Text(text="Read it.")]))
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        menu = app.screen.query_one(CommandMenu)
        await until(pilot, lambda: app.connection is not None)
        await pilot.press(*"summarise @sal")
        await until(pilot, lambda: menu.chosen() == "summarise @data/sales.csv ")
        await pilot.press("tab", "enter")
        await until(pilot, lambda: "Read it." in answers(app))
        body = sent(llm, 0)
        assert "summarise @data/sales.csv" in body and "year,sales" in body and "<file name=" in body


@pytest.mark.asyncio
async def test_a_long_session_opens_with_its_newest_messages_and_scrolling_up_loads_more(
    home: Path, llm: ScriptedLLMServer
) -> None:
    from prime_jupyter.cli.tui.screens.chat import ChatScreen
    from prime_jupyter.cli.tui.widgets.conversation import Conversation

    from prime_jupyter.protocol.hydration import total_usage

    earlier = local_connection(home)
    for i in range(4):
        llm.enqueue(ScriptedTurn(blocks=[Text(text=f"answer {i}")]))
        await earlier.prompt(f"question {i}")
        await earlier.wait_for_idle()
    await earlier.dispose()
    connection = local_connection(home, mode="continue")
    try:

        async def connect() -> AgentConnection:
            screen = app.screen
            assert isinstance(screen, ChatScreen)
            screen.feed.mounted = 3  # a long session, in small
            return connection

        app = PrimeApp(connect, cwd_label="~/work")
        async with app.run_test(size=(100, 12)) as pilot:
            conversation = app.screen.query_one(Conversation)
            await until(pilot, lambda: "answer 3" in answers(app))
            assert [str(u.content) for u in app.screen.query(UserMessageView)] == ["question 3"]
            fold = app.screen.feed.fold if isinstance(app.screen, ChatScreen) else None
            assert fold is not None
            # the snapshot holds the newest turns only; the messages before them are read once it is drawn
            await until(pilot, lambda: any("5 earlier messages" in str(n.content) for n in app.screen.query(Notice)))
            assert fold.earlier == 4  # the first two turns are not even folded yet
            branch = await connection.get_messages()
            assert fold.state.usage == total_usage(branch.messages) and fold.state.usage.output > 0
            for _ in range(2):
                conversation.scroll_end(animate=False)
                await pilot.pause()
                conversation.scroll_home(animate=False)
                await until(pilot, lambda: len(app.screen.query(UserMessageView)) > 1)
            await until(pilot, lambda: len(app.screen.query(UserMessageView)) == 4)
            shown = [str(u.content) for u in app.screen.query(UserMessageView)]
            assert shown == ["question 0", "question 1", "question 2", "question 3"] and fold.earlier == 0
            await until(pilot, lambda: "answer 0" in answers(app))  # an answer draws its text once mounted
            await until(pilot, lambda: not any("earlier messages" in str(n.content) for n in app.screen.query(Notice)))
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_an_edit_card_shows_the_diff_and_a_write_card_the_content(home: Path, llm: ScriptedLLMServer) -> None:
    (home.parent / "work" / "notes.md").write_text("alpha\nbeta\n")
    edit = {"path": "notes.md", "edits": [{"oldText": "beta", "newText": "gamma"}]}
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="edit", id="call-edit", arguments=edit)]),
        ScriptedTurn(
            blocks=[ToolCall(name="write", id="call-write", arguments={"path": "new.py", "content": "x = 1\n"})]
        ),
        ScriptedTurn(blocks=[Text(text="Edited and written.")]),
    )
    connection = local_connection(home, tools=["edit", "write"])
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"change it", "enter")
            await until(pilot, lambda: "Edited and written." in answers(app))
            cards = {card.call_id: card_text(card) for card in app.screen.query(ToolCard)}
            assert "edit  notes.md" in cards["call-edit"] and "-beta" in cards["call-edit"]
            assert "+gamma" in cards["call-edit"]
            assert "write  new.py" in cards["call-write"] and "x = 1" in cards["call-write"]
    finally:
        await connection.dispose()
