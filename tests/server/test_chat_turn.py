"""`POST chat/new`, `POST chat` (NDJSON) and `GET chat/session` through a real server."""

from __future__ import annotations

import json
from pathlib import Path

from kit.server import PrimeClient, kinds, text_of

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, Thinking, ToolCall


async def test_frames_arrive_while_the_provider_is_still_streaming(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    answer = "streaming " * 40
    llm.enqueue(ScriptedTurn(blocks=[Text(text=answer, chunks=40)], chunk_delay_s=0.02))
    frames = []
    provider_done_at_first_delta = None
    async with prime.chat({"sessionId": session_id, "message": "go"}) as stream:
        async for frame in stream:
            if frame["type"] == "text-delta" and provider_done_at_first_delta is None:
                provider_done_at_first_delta = llm.requests[-1].finished_at is not None
            frames.append(frame)
    assert provider_done_at_first_delta is False
    assert kinds(frames)[0] == "start" and kinds(frames)[-1] == "done"
    assert frames[-1]["runId"] == frames[0]["runId"] and frames[-1]["stopReason"] == "stop"
    assert text_of(frames) == answer


async def test_hydration_is_lossless_and_uses_the_live_ids(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(
        ScriptedTurn(
            blocks=[
                Thinking(text="let me look"),
                Text(text="checking"),
                ToolCall(name="bash", arguments={"command": "echo out"}),
            ]
        ),
        ScriptedTurn(blocks=[Text(text="it printed out")]),
    )
    frames = await prime.turn(session_id, "what does echo print?")
    final = {f["message"]["id"]: f["message"] for f in frames if f["type"] == "message-end"}
    tools = [f["part"] for f in frames if f["type"] == "tool"]
    hydrated = (await prime.session(session_id))["messages"]
    assert [m["id"] for m in hydrated] == list(final)  # the ids the live stream ended with
    first = hydrated[1]
    assert [p["type"] for p in first["parts"]] == ["reasoning", "text", "tool-Bash"]
    assert first["parts"][0]["text"] == "let me look"
    tool = first["parts"][2]
    assert tool["input"] == {"command": "echo out"} and tool["state"] == "output-available"
    assert tool["output"]["content"][0]["text"].strip() == "out"
    assert tool == tools[-1]  # the last tool frame is what hydration shows
    assert hydrated[2]["parts"] == [{"type": "text", "text": "it printed out"}]


async def test_a_message_while_busy_gets_one_error_frame(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "sleep 0.5"})]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="done")]))
    busy: list[dict[str, object]] = []
    async with prime.chat({"sessionId": session_id, "message": "first"}) as stream:
        async for frame in stream:
            if frame["type"] == "tool" and not busy:
                busy = await prime.turn(session_id, "second")
    assert len(busy) == 1 and busy[0]["type"] == "error" and busy[0]["reason"] == "busy"
    assert [m["role"] for m in (await prime.session(session_id))["messages"]].count("user") == 1


async def test_an_unknown_model_is_an_error_frame(prime: PrimeClient) -> None:
    session_id = await prime.new_session()
    frames = await prime.turn(session_id, "hi", model={"provider": "nope", "id": "x"})
    assert len(frames) == 1 and frames[0]["reason"] == "unknown-model" and "nope" in frames[0]["message"]


async def test_the_run_goes_on_when_the_client_goes_away(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    answer = "still here " * 20
    llm.enqueue(ScriptedTurn(blocks=[Text(text=answer, chunks=20)], chunk_delay_s=0.02))
    async with prime.chat({"sessionId": session_id, "message": "go"}) as stream:
        async for frame in stream:
            if frame["type"] == "text-delta":
                break  # leaving the block closes the connection mid-run
    snapshot = await prime.settled(session_id, messages=2)
    assert snapshot["messages"][1]["parts"] == [{"type": "text", "text": answer}]
    assert snapshot["messages"][1]["stopReason"] == "stop"


async def test_new_sessions_are_listed_at_once_with_their_seed(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    created = await prime.post(
        "chat/new",
        {
            "seedMessages": [
                {"role": "user", "text": "earlier question"},
                {"role": "assistant", "text": "earlier answer"},
            ]
        },
    )
    session_id = created["session"]["sessionId"]
    assert [m["parts"][0]["text"] for m in created["messages"]] == ["earlier question", "earlier answer"]
    listed = (await prime.get("chat/sessions"))["sessions"]
    assert [s["sessionId"] for s in listed] == [session_id] and listed[0]["status"] == "idle"
    llm.enqueue(ScriptedTurn(blocks=[Text(text="and now")]))
    await prime.turn(session_id, "next")
    body = json.dumps(llm.requests[-1].body)
    assert "earlier question" in body and "earlier answer" in body


PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def _models(agent_dir: Path, **inputs: list[str]) -> None:
    """The scripted provider's models, named with their inputs (as `models.json` declares them)."""
    models = json.loads((agent_dir / "models.json").read_text())
    models["providers"]["scripted"]["models"] = [
        {"id": name, "input": kinds, "contextWindow": 100_000, "maxTokens": 4096} for name, kinds in inputs.items()
    ]
    (agent_dir / "models.json").write_text(json.dumps(models))


async def test_images_travel_with_the_message(prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path) -> None:
    _models(agent_dir, m1=["text", "image"])
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="a pixel")]))
    image = {"mimeType": "image/png", "data": PIXEL}
    await prime.turn(session_id, "what is this?", images=[image])
    user = (await prime.session(session_id))["messages"][0]
    assert user["parts"] == [{"type": "text", "text": "what is this?"}, {"type": "image", **image}]
    assert PIXEL in json.dumps(llm.requests[-1].body)


async def test_a_model_without_image_input_gets_the_note_for_earlier_images(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path
) -> None:
    """Issue 31 item 4: after a switch to a model without image input, the session's earlier images still
    went to the provider (85 KB of image for a chat-completions model), where a `-p` run says "not shown"."""
    _models(agent_dir, m1=["text", "image"], m2=["text"])
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="a pixel")]), ScriptedTurn(blocks=[Text(text="text only")]))
    await prime.turn(session_id, "what is this?", images=[{"mimeType": "image/png", "data": PIXEL}])
    assert PIXEL in json.dumps(llm.requests[-1].body)
    await prime.post("chat/model", {"sessionId": session_id, "model": {"provider": "scripted", "id": "m2"}})
    await prime.turn(session_id, "and now?")
    body = json.dumps(llm.requests[-1].body)
    assert PIXEL not in body and '"image"' not in body
    assert "[image 1: image/png, not shown: this model does not take images]" in body
