"""`GET chat/events`: SSE of every frame with `id: <seq>`, replay from a cursor, resync, heartbeats."""

from __future__ import annotations

import pytest
from kit.server import PrimeClient, text_of

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text


async def test_replay_after_a_cursor_gives_exactly_the_frames_that_followed(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one two three four", chunks=4)]))
    turn = await prime.turn(session_id, "count")
    cursor = (await prime.session(session_id))["cursor"]
    first = cursor - len(turn) + 1  # the run's frames are all the session has said
    for header in (True, False):
        async with prime.events(session_id, cursor=first + 2, header=header) as sse:
            seq, connected = await sse.frame()
            assert seq is None and connected["type"] == "connected" and connected["cursor"] == cursor
            replayed = [await sse.frame() for _ in range(len(turn) - 3)]
        assert [s for s, _ in replayed] == list(range(first + 3, cursor + 1))
        assert [f for _, f in replayed] == turn[3:]
    async with prime.events(session_id, cursor=0) as sse:  # 0: nothing seen yet, so all of it
        await sse.frame()
        assert [await sse.frame() for _ in turn] == list(zip(range(first, cursor + 1), turn, strict=True))


async def test_without_a_cursor_only_new_frames_come(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="first")]), ScriptedTurn(blocks=[Text(text="second")]))
    await prime.turn(session_id, "a")
    cursor = (await prime.session(session_id))["cursor"]
    async with prime.events(session_id) as sse:
        _, connected = await sse.frame()
        await prime.turn(session_id, "b")
        frames = await sse.until(lambda f: f["type"] == "done")
    assert connected["cursor"] == cursor
    assert frames[0] == (cursor + 1, frames[0][1]) and frames[0][1]["type"] == "start"
    assert text_of([f for _, f in frames]) == "second"


async def test_a_cursor_that_fell_out_of_the_ring_gets_resync_required(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="x" * 600, chunks=600)]))
    turn = await prime.turn(session_id, "long")
    assert len(turn) > 600
    last = (await prime.session(session_id))["cursor"]
    for gone in (last - len(turn) + 5, 0):
        async with prime.events(session_id, cursor=gone) as sse:
            await sse.frame()
            seq, frame = await sse.frame()
            assert seq is None and frame == {"type": "resync-required", "reason": "cursor-expired"}
    async with prime.events(session_id, cursor=last - 500) as sse:  # the oldest frame still held
        await sse.frame()
        seq, frame = await sse.frame()
        assert seq == last - 499 and frame == turn[-500]


async def test_a_cursor_it_never_handed_out_gets_resync_required(prime: PrimeClient) -> None:
    session_id = await prime.new_session()
    cursor = (await prime.session(session_id))["cursor"]
    for stranger in (742, cursor + 1):  # below the ring (an earlier server process), or ahead of it
        async with prime.events(session_id, cursor=stranger) as sse:
            await sse.frame()
            assert (await sse.frame())[1]["type"] == "resync-required"


async def test_reconnecting_in_the_middle_of_a_run_loses_nothing(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    answer = "".join(f"{i:03d} " for i in range(150))
    llm.enqueue(ScriptedTurn(blocks=[Text(text=answer, chunks=150)], chunk_delay_s=0.01))
    seen: list[tuple[int | None, dict[str, object]]] = []
    async with prime.chat({"sessionId": session_id, "message": "go"}) as stream:
        async with prime.events(session_id) as sse:
            await sse.frame()
            seen += await sse.until(lambda f: f["type"] == "text-delta" and "040" in str(f["delta"]))
        last = seen[-1][0]
        async with prime.events(session_id, cursor=last) as sse:
            await sse.frame()
            seen += await sse.until(lambda f: f["type"] == "done")
        ndjson = [frame async for frame in stream]
    seqs = [s for s, _ in seen]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # no gap, no repeat
    frames = [f for _, f in seen]
    assert text_of(frames) == answer and frames == ndjson[len(ndjson) - len(frames) :]


@pytest.mark.prime(heartbeat_interval=0.05)
async def test_an_idle_stream_gets_heartbeats(prime: PrimeClient) -> None:
    session_id = await prime.new_session()
    async with prime.events(session_id) as sse:
        await sse.frame()
        await sse.raw_until(b": heartbeat\n\n")


async def test_deleting_a_session_ends_its_streams(prime: PrimeClient) -> None:
    session_id = await prime.new_session()
    async with prime.events(session_id) as sse:
        await sse.frame()
        await prime.call("DELETE", "chat/sessions", sessionId=session_id)
        with pytest.raises(StopAsyncIteration):
            await sse.next()


async def test_a_snapshot_mid_run_plus_the_frames_after_its_cursor_is_the_whole_answer(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session()
    answer = "".join(f"{i:03d} " for i in range(100))
    llm.enqueue(ScriptedTurn(blocks=[Text(text=answer, chunks=100)], chunk_delay_s=0.01))
    async with prime.chat({"sessionId": session_id, "message": "go"}) as stream:
        async for frame in stream:
            if frame["type"] == "text-delta" and "030" in frame["delta"]:
                break
        snapshot = await prime.session(session_id)
        async with prime.events(session_id, cursor=snapshot["cursor"]) as sse:
            await sse.frame()
            after = [f for _, f in await sse.until(lambda f: f["type"] == "done")]
    streaming = snapshot["live"]["message"]
    assert snapshot["messages"][-1] == streaming and streaming["id"].startswith(snapshot["live"]["runId"])
    partial = streaming["parts"][0]["text"] if streaming["parts"] else ""
    assert partial + text_of(after) == answer
    final = next(f for f in after if f["type"] == "message-end" and f["messageId"] == streaming["id"])
    assert final["message"] == (await prime.session(session_id))["messages"][-1]
