"""What only the in-process connection offers: process-local reads of the live session."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.connection.types import ConnectionEvent, SessionEventReceived, SessionReplaced
from prime_jupyter.protocol.events import MessageUpdate
from prime_jupyter.runtime.factory import SessionOptions
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.jupyter_process import write_agent_dir


@pytest.mark.asyncio
async def test_the_header_is_the_one_of_the_session_view_and_of_the_file(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    write_agent_dir(tmp_path / "agent", llm)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    options = SessionOptions(cwd=tmp_path, model="scripted/m1", agent_dir=tmp_path / "agent")
    connection = InProcessAgentConnection.create(options)
    try:
        await connection.prompt("hi")
        await connection.wait_for_idle()
        header = (await connection.get_state()).header
        assert header == (await connection.get_session_view()).header
        assert header["type"] == "session" and header["id"] == connection.session.session_id
        assert header["cwd"] == str(tmp_path.resolve())
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_the_state_follows_the_kernel_of_the_ipython_tool(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    from prime_jupyter.connection import LocalTarget, open_connection

    write_agent_dir(tmp_path / "agent", llm)
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "x = 41 + 1"})]),
        ScriptedTurn(blocks=[Text(text="done")]),
    )
    target = LocalTarget(cwd=tmp_path, model="scripted/m1", agent_dir=tmp_path / "agent", tools=("ipython",))
    connection = await open_connection(target)
    try:
        assert (await connection.get_state()).kernel_state in ("stopped", "starting")
        await connection.prompt("run it")
        await connection.wait_for_idle()
        state = await connection.get_state()
        assert state.kernel_state == "idle" and state.kernel_id
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_a_snapshot_with_a_tail_holds_the_newest_turns_of_the_branch_and_messages_the_rest(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    from prime_jupyter.ai.types import UserMessage

    write_agent_dir(tmp_path / "agent", llm)
    options = SessionOptions(cwd=tmp_path, model="scripted/m1", agent_dir=tmp_path / "agent", tools=["bash"])
    first = InProcessAgentConnection.create(options)
    try:
        await first.run_shell("echo kept from the agent", include_in_context=False)  # an entry, not a message
        for i in range(3):
            llm.enqueue(
                ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": f"echo {i}"})]),
                ScriptedTurn(blocks=[Text(text=f"answer {i}")]),
            )
            await first.prompt(f"question {i}")
            await first.wait_for_idle()
        assert (await first.get_snapshot(tail=4)).earlier_messages == 4  # entries validated, not data
    finally:
        await first.dispose()
    reopened = InProcessAgentConnection.create(dataclasses.replace(options, mode="continue"))  # entries left as data
    try:
        branch = await reopened.get_messages()
        assert len(branch.messages) == 12  # a question, a call, its result and an answer each turn
        newest = await reopened.get_snapshot(tail=4)  # 3 messages a turn, the tool result not counted: two turns
        assert newest.entry_ids == branch.entry_ids[4:] and newest.messages == branch.messages[4:]
        assert isinstance(newest.messages[0], UserMessage) and newest.messages[0].content == "question 1"
        assert newest.earlier_messages == 4  # what `get_messages` has before them, tool results counted
        assert (await reopened.get_snapshot(tail=3)).entry_ids == branch.entry_ids[8:]
        assert (await reopened.get_snapshot(tail=3)).earlier_messages == 8
        assert (await reopened.get_snapshot(tail=7)).entry_ids == branch.entry_ids
        assert (await reopened.get_snapshot(tail=7)).earlier_messages == 0
        assert (await reopened.get_snapshot()).entry_ids == branch.entry_ids
        assert (await reopened.get_snapshot()).earlier_messages == 0
    finally:
        await reopened.dispose()


@pytest.mark.asyncio
async def test_events_carry_their_place_and_a_snapshot_the_place_it_holds(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    """A listener that subscribed before a snapshot can drop the events the snapshot holds (the terminal
    app subscribes, then reads its snapshot while the session's thread may go on emitting)."""
    write_agent_dir(tmp_path / "agent", llm)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one two three four five six", chunks=6)], chunk_delay_s=0.05))
    options = SessionOptions(cwd=tmp_path, model="scripted/m1", agent_dir=tmp_path / "agent")
    connection = InProcessAgentConnection.create(options)
    seen: list[ConnectionEvent] = []
    streaming = asyncio.Event()

    def listen(item: ConnectionEvent) -> None:
        seen.append(item)
        if sum(isinstance(i, SessionEventReceived) and isinstance(i.event, MessageUpdate) for i in seen) >= 2:
            streaming.set()

    connection.subscribe(listen)

    def places() -> list[int]:  # an event without its place shows as -1
        return [-1 if item.seq is None else item.seq for item in seen if isinstance(item, SessionEventReceived)]

    try:
        await connection.prompt("count")
        await asyncio.wait_for(streaming.wait(), 10)
        mid = await connection.get_snapshot()
        held = places()
        assert held == list(range(1, len(held) + 1)) and mid.cursor == held[-1]  # mid-answer: all of them, in order
        await connection.wait_for_idle()
        whole = places()
        assert whole[: len(held)] == held and whole == list(range(1, len(whole) + 1)) and len(whole) > len(held)
        assert (await connection.get_snapshot()).cursor == whole[-1]
        replaced = await connection.new_session()
        assert [i.snapshot.cursor for i in seen if isinstance(i, SessionReplaced)] == [whole[-1]]
        assert replaced.snapshot is not None and replaced.snapshot.cursor == whole[-1]
        llm.enqueue(ScriptedTurn(blocks=[Text(text="again")]))
        await connection.prompt("again")
        await connection.wait_for_idle()
        after = places()[len(whole) :]
        assert after and after[0] == whole[-1] + 1 and after == sorted(set(after))  # the replacement's go on from it
    finally:
        await connection.dispose()
