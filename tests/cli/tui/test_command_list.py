"""The app's commands cannot drift from the session's: each advertised command has a handler here, each
handler is advertised, and in process the menu's words are the connection's registry's."""

from __future__ import annotations

import pytest
from prime_jupyter.cli.tui.commands import APP_COMMANDS, APP_HANDLERS, SESSION_HANDLERS, command_list
from prime_jupyter.cli.tui.widgets.command_menu import CommandMenu
from tui_kit import SIZE, app_on, until

from prime_jupyter.connection.extensions import BUILTIN_COMMANDS, CommandInfo
from prime_jupyter.connection.in_process import InProcessAgentConnection


def test_every_built_in_command_has_a_handler_and_every_handler_is_advertised() -> None:
    advertised = {c.name for c in BUILTIN_COMMANDS} | {c.name for c in APP_COMMANDS}
    handled = set(SESSION_HANDLERS) | set(APP_HANDLERS)
    assert advertised - handled == set(), "advertised in BUILTIN_COMMANDS (or APP_COMMANDS) with no handler"
    assert handled - advertised == set(), "handled by the app but advertised nowhere"
    assert not set(SESSION_HANDLERS) & set(APP_HANDLERS)


def test_without_the_registry_the_built_in_commands_are_offered() -> None:
    assert command_list(None) == [*BUILTIN_COMMANDS, *APP_COMMANDS]


@pytest.mark.asyncio
async def test_in_process_the_menu_takes_the_registry_s_commands(connection: InProcessAgentConnection) -> None:
    registry = connection.extensions.commands_registry
    registry.register(CommandInfo("nohandler", "a command no front end implements", source="test"))
    offered = command_list(connection)
    assert [c.name for c in offered] == [c.name for c in registry.commands() if c.name != "nohandler"] + ["theme"]
    app = app_on(connection)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.screen.connection is not None)  # type: ignore[attr-defined]
        await pilot.press("/", "c", "l")
        menu = app.screen.query_one(CommandMenu)
        clone = next(c for c in BUILTIN_COMMANDS if c.name == "clone")
        await until(pilot, lambda: menu.display and menu.chosen() == "/clone ")
        assert clone.description in str(menu.get_option_at_index(0).prompt)
        await pilot.press("backspace", "backspace", *"nohandler")
        assert not menu.display
