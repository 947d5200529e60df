"""The panel shows the user's shell commands live (issue 16), end to end in headless Chromium
(`e2e/shell.mjs`): a terminal attached to the session (here, an `HttpAgentConnection` of the test) runs
`!cmd`; the panel's card shows the output while the command waits for a file, then its end; the card's
Stop button cancels a running command. Screenshots: `tests/browser/screenshots/4*-shell-*`.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest
from kit.browser import Lab, finish_scenario, start_scenario, wait_for_file

from prime_jupyter.connection import ServerTarget, open_connection
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

pytestmark = pytest.mark.timeout(300)

SHELL = Path(__file__).parent / "e2e" / "shell.mjs"
WAITS = "echo first-line; while [ ! -e go ]; do sleep 0.05; done; echo second-line"


async def commands(
    lab: Lab, session_id: str, seen: Path, stopping: Path, driver: subprocess.Popen[str]
) -> tuple[bool, bool]:
    """Run the waiting command, then one the panel stops: whether the first was still running when the
    panel had shown its output, and whether the second was cancelled."""
    target = ServerTarget(cwd=Path.cwd(), url=lab.url, token=lab.token, session=session_id)
    conn = await open_connection(target)
    try:
        cwd = Path((await conn.get_state()).cwd)
        running = asyncio.ensure_future(conn.run_shell(WAITS, True))
        while not seen.exists() and driver.poll() is None:  # noqa: ASYNC110 (a file the driver writes)
            await asyncio.sleep(0.1)
        if not seen.exists():
            running.cancel()
            return False, False  # the driver failed: its report says why
        still_running = not running.done()
        (cwd / "go").touch()
        await asyncio.wait_for(running, 60)
        stopping.write_text("go")
        cancelled = (await asyncio.wait_for(conn.run_shell("echo waiting; sleep 60", False), 90)).cancelled
    finally:
        await conn.dispose()
    return still_running, cancelled


def test_the_panel_shows_a_terminals_shell_command_live_and_stops_it(
    lab: Lab, turns: ScriptedLLMServer, tmp_path: Path
) -> None:
    turns.enqueue(ScriptedTurn(blocks=[Text(text="Ready.")]))
    marker, seen, stopping = tmp_path / "session", tmp_path / "seen", tmp_path / "stopping"
    files = {"marker": str(marker), "seen": str(seen), "stopping": str(stopping)}
    params = {"prompt": "hello", "expect": "Ready.", **files}
    driver = start_scenario(lab, "shell", params, driver=SHELL)
    try:
        wait_for_file(marker, driver)
        still_running, cancelled = asyncio.run(commands(lab, marker.read_text(), seen, stopping, driver))
        report = finish_scenario(lab, driver)
    finally:
        driver.kill()
    assert still_running and cancelled
    assert report["running"]["state"] == "running" and report["running"]["output"] == "first-line\n"
    assert report["running"]["command"] == "$ " + WAITS and report["running"]["status"] == "running…"
    assert report["done"]["output"] == "first-line\nsecond-line" and report["done"]["status"] == "exit code 0"
    assert report["stopped"]["status"] == "cancelled" and report["stopped"]["private"]
    assert report["cards"] == 2
