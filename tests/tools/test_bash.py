"""The bash tool with real subprocesses: streaming, truncation, exit codes, timeouts and aborts."""

# Files are checked with plain blocking calls on purpose: tests are the only thing running.

from __future__ import annotations

import asyncio
import os
import signal
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from prime_jupyter.agent.tool import AgentToolResult, ToolUpdate
from prime_jupyter.ai.abort import AbortController, AbortedError
from prime_jupyter.ai.types import TextContent
from prime_jupyter.errors import ToolError
from prime_jupyter.tools.bash import make_bash_tool

HANG_GUARD = 60  # seconds; only stops a broken build from hanging the suite, never asserted


async def bash(
    cwd: Path,
    command: str,
    seconds: float | None = None,
    on_update: ToolUpdate = lambda _: None,
    controller: AbortController | None = None,
) -> AgentToolResult:
    tool = make_bash_tool(str(cwd))
    params = tool.parameters.model_validate({"command": command, "timeout": seconds})
    signal_ = (controller or AbortController()).signal
    return await asyncio.wait_for(tool.execute("call-1", params, signal_, on_update), HANG_GUARD)


def text_of(result: AgentToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def alive(pid: int) -> bool:
    """Whether `pid` runs; a zombie (dead, not yet reaped by its new parent) counts as gone."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def eventually(condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + 10
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


@pytest.mark.asyncio
async def test_returns_combined_stdout_and_stderr(tmp_path: Path) -> None:
    result = await bash(tmp_path, "echo out; echo err >&2; echo more")
    assert text_of(result) == "out\nerr\nmore"


@pytest.mark.asyncio
async def test_runs_in_the_working_directory(tmp_path: Path) -> None:
    assert text_of(await bash(tmp_path, "pwd")) == str(tmp_path)


@pytest.mark.asyncio
async def test_silent_success_says_no_output(tmp_path: Path) -> None:
    assert text_of(await bash(tmp_path, "true")) == "(no output)"


@pytest.mark.asyncio
async def test_non_zero_exit_is_an_error_that_shows_the_output(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as caught:
        await bash(tmp_path, "echo oops >&2; exit 3")
    assert str(caught.value) == "oops\n\nCommand exited with code 3"


@pytest.mark.asyncio
async def test_stdin_is_closed_so_prompts_do_not_hang(tmp_path: Path) -> None:
    assert text_of(await bash(tmp_path, 'read answer; echo "got:$answer"')) == "got:"


@pytest.mark.asyncio
async def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    assert text_of(await bash(tmp_path, r"printf 'a\xffb'")) == "a\ufffdb"


@pytest.mark.asyncio
async def test_output_streams_while_the_command_runs(tmp_path: Path) -> None:
    # The command waits for a file that only the update callback creates: it finishes "streamed"
    # only if an update carrying "first" arrived while it was still running.
    go = tmp_path / "go"
    updates: list[str] = []

    def on_update(result: AgentToolResult) -> None:
        updates.append(text_of(result) if result.content else "")
        if "first" in updates[-1]:
            go.touch()

    command = "echo first; for i in $(seq 200); do [ -f go ] && break; sleep 0.05; done; "
    command += "[ -f go ] && echo streamed || echo not-streamed"
    result = await bash(tmp_path, command, on_update=on_update)
    assert text_of(result) == "first\nstreamed"
    assert updates[-1] == "first\nstreamed\n"  # updates carry all output so far, not deltas


@pytest.mark.asyncio
async def test_long_output_keeps_the_last_2000_lines_and_saves_everything(tmp_path: Path) -> None:
    result = await bash(tmp_path, "seq 1 5000")
    assert isinstance(result.details, dict)
    full = Path(str(result.details["fullOutputPath"]))
    assert text_of(result).startswith("3001\n3002\n")
    assert text_of(result).endswith(f"4999\n5000\n\n[Showing lines 3001-5000 of 5000. Full output: {full}]")
    assert full.name.startswith("prime-bash-") and full.read_text() == "".join(f"{i}\n" for i in range(1, 5001))
    full.unlink()


@pytest.mark.asyncio
async def test_wide_output_keeps_the_last_50kb_of_whole_lines(tmp_path: Path) -> None:
    result = await bash(tmp_path, "for i in $(seq 1 1500); do printf '%099d\\n' $i; done")
    assert isinstance(result.details, dict)
    full = Path(str(result.details["fullOutputPath"]))
    assert text_of(result).endswith(f"\n\n[Showing lines 989-1500 of 1500 (50.0KB limit). Full output: {full}]")
    assert full.stat().st_size == 150_000
    full.unlink()


@pytest.mark.asyncio
async def test_one_huge_line_keeps_its_end(tmp_path: Path) -> None:
    result = await bash(tmp_path, "head -c 100000 /dev/zero | tr '\\0' a; echo -n END")
    assert isinstance(result.details, dict)
    full = Path(str(result.details["fullOutputPath"]))
    body, note = text_of(result).split("\n\n")
    assert (len(body), body.endswith("aEND"), note) == (
        51200,
        True,
        f"[Showing the last 50.0KB of line 1. Full output: {full}]",
    )
    full.unlink()


@pytest.mark.asyncio
async def test_output_far_over_budget_is_all_in_the_file(tmp_path: Path) -> None:
    result = await bash(tmp_path, "seq 1 1000000")
    assert isinstance(result.details, dict)
    full = Path(str(result.details["fullOutputPath"]))
    assert text_of(result).endswith(f"1000000\n\n[Showing lines 998001-1000000 of 1000000. Full output: {full}]")
    assert full.read_bytes() == b"".join(b"%d\n" % i for i in range(1, 1000001))
    full.unlink()


@pytest.mark.asyncio
async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    # The grandchild ignores SIGTERM, so only the SIGKILL that follows the grace period ends it.
    command = "(trap '' TERM; sleep 300 & echo $! > grandchild.pid; wait); echo never"
    with pytest.raises(ToolError) as caught:
        await bash(tmp_path, command, seconds=1)
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    assert str(caught.value) == "Command timed out after 1 seconds"
    assert eventually(lambda: not alive(grandchild))


@pytest.mark.asyncio
async def test_abort_stops_the_command_and_keeps_its_output(tmp_path: Path) -> None:
    controller = AbortController()

    def on_update(result: AgentToolResult) -> None:
        if result.content and "started" in text_of(result):
            controller.abort()

    command = "sleep 300 & echo $! > child.pid; echo started; wait"
    with pytest.raises(ToolError) as caught:
        await bash(tmp_path, command, on_update=on_update, controller=controller)
    child = int((tmp_path / "child.pid").read_text())
    assert str(caught.value) == "started\n\nCommand aborted"
    assert eventually(lambda: not alive(child))


@pytest.mark.asyncio
async def test_background_child_holding_the_pipe_does_not_hang_the_tool(tmp_path: Path) -> None:
    result = await bash(tmp_path, "sleep 300 & echo $!")
    pid = int(text_of(result))
    assert alive(pid)  # a background job is left running, as the user asked
    os.kill(pid, signal.SIGKILL)


@pytest.mark.asyncio
async def test_command_killed_by_a_signal_names_it(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="Command was killed by signal SIGKILL"):
        await bash(tmp_path, "kill -KILL $$")


@pytest.mark.asyncio
async def test_empty_command_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="command is empty"):
        await bash(tmp_path, "  ")


@pytest.mark.asyncio
async def test_missing_working_directory_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="Working directory does not exist"):
        await bash(tmp_path / "gone", "true")


def test_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match="greater than 0"):
        make_bash_tool(".").parameters.model_validate({"command": "true", "timeout": 0})


@pytest.mark.asyncio
async def test_output_that_fits_after_all_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 51,200 bytes plus a final newline: over the budget while streaming, within it once the newline ends the line.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = await bash(tmp_path, "head -c 51200 /dev/zero | tr '\\0' a; echo")
    assert (text_of(result) == "a" * 51200, result.details, list(tmp_path.glob("prime-bash-*"))) == (True, None, [])


@pytest.mark.asyncio
async def test_already_aborted_signal_runs_nothing(tmp_path: Path) -> None:
    controller = AbortController()
    controller.abort()
    with pytest.raises(AbortedError):
        await bash(tmp_path, "touch ran", controller=controller)
    assert not (tmp_path / "ran").exists()
