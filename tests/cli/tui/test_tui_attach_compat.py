"""The app attached to servers of other revisions (version.py): a server before revision 8 does not say
whether its snapshot left earlier messages out, so the app reads the branch as it always did; a newer
one says it left none out, and the app reads nothing more.

The servers are stand-ins (`kit.other_server`) whose answers the test fixes, so what the app asked for
can be counted.
"""

from __future__ import annotations

from typing import Any

import pytest
from kit.other_server import OtherServer, serve
from prime_jupyter.cli.tui.screens.chat import ChatScreen
from prime_jupyter.cli.tui.widgets.message import UserMessageView
from tui_kit import SIZE, app_on, until

from prime_jupyter.connection.http import HttpAgentConnection

BRANCH: dict[str, Any] = {
    "messages": [{"role": "user", "content": "the only question", "timestamp": 1}],
    "entryIds": ["e1"],
}


async def commands_after_drawing(snapshot: dict[str, Any]) -> list[str]:
    """The commands the app sent a stand-in server whose attach snapshot holds `BRANCH` and `snapshot`,
    once it drew the session and read what it reads after the first paint."""
    server = OtherServer()
    server.snapshot = {**BRANCH, **snapshot}
    server.branch = BRANCH
    with serve(server) as endpoint:
        connection = await HttpAgentConnection.connect(endpoint)
        try:
            app = app_on(connection, attached=True)
            async with app.run_test(size=SIZE) as pilot:
                views = lambda: [str(u.content) for u in app.screen.query(UserMessageView)]  # noqa: E731
                await until(pilot, lambda: views() == ["the only question"])
                screen = app.screen
                assert isinstance(screen, ChatScreen)
                await screen.feed.add_earlier()  # what the app reads once the session is drawn
        finally:
            await connection.dispose()
    return server.commands()


@pytest.mark.asyncio
async def test_a_snapshot_that_does_not_say_what_it_left_out_is_followed_by_reading_the_branch() -> None:
    assert "get_messages" in await commands_after_drawing({})


@pytest.mark.asyncio
async def test_a_snapshot_that_left_nothing_out_is_not_followed_by_reading_the_branch() -> None:
    assert "get_messages" not in await commands_after_drawing({"earlierMessages": 0})
