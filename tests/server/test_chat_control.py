"""Steering and follow-up during a run, abort, and switching the model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit.server import Json, PrimeClient, kinds, text_of

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


def bash(command: str) -> ToolCall:
    return ToolCall(name="bash", arguments={"command": command})


async def test_steer_and_follow_up_join_the_run(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(
        ScriptedTurn(blocks=[bash("sleep 0.5; echo slow")]),
        ScriptedTurn(blocks=[Text(text="steered")]),
        ScriptedTurn(blocks=[Text(text="followed")]),
    )
    main: list[Json] = []
    joined: dict[str, list[Json]] = {}
    async with prime.chat({"sessionId": session_id, "message": "start"}) as stream:
        async for frame in stream:
            main.append(frame)
            if frame["type"] == "tool" and frame["part"]["state"] == "input-available" and not joined:
                for behavior, text in (("followUp", "FOLLOW"), ("steer", "STEER")):
                    async with prime.chat(
                        {"sessionId": session_id, "message": text, "streamingBehavior": behavior}
                    ) as s:
                        joined[behavior] = [await anext(s)]
                        assert joined[behavior][0] == {
                            "type": "start",
                            "runId": main[0]["runId"],
                            "sessionId": session_id,
                        }
    queues = [f for f in main if f["type"] == "queue"]
    assert {"type": "queue", "steering": ["STEER"], "followUp": ["FOLLOW"]} in queues
    assert text_of(main) == "steeredfollowed" and main[-1]["type"] == "done"
    users = [m["parts"][0]["text"] for m in (await prime.session(session_id))["messages"] if m["role"] == "user"]
    assert users == ["start", "STEER", "FOLLOW"]


async def test_a_joined_stream_runs_to_the_runs_done(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[bash("sleep 0.3")]), ScriptedTurn(blocks=[Text(text="after the nudge")]))
    async with prime.chat({"sessionId": session_id, "message": "start"}) as stream:
        async for frame in stream:
            if frame["type"] == "tool":
                steer = await prime.turn(session_id, "nudge", streamingBehavior="steer")
                break
    assert kinds(steer)[0] == "start" and kinds(steer)[-1] == "done" and text_of(steer) == "after the nudge"
    user_ends = [f["message"] for f in steer if f["type"] == "message-end" and f["message"]["role"] == "user"]
    assert [m["parts"][0]["text"] for m in user_ends] == ["nudge"]


async def test_abort_ends_the_run_and_keeps_the_session_usable(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[bash("sleep 30")]))
    frames: list[Json] = []
    async with prime.chat({"sessionId": session_id, "message": "wait"}) as stream:
        async for frame in stream:
            frames.append(frame)
            if frame["type"] == "tool" and frame["part"]["state"] == "input-available":
                assert await prime.post("chat/abort", {"sessionId": session_id}) == {
                    "ok": True,
                    "sessionId": session_id,
                }
    assert frames[-1]["type"] == "done" and frames[-1]["stopReason"] == "aborted"
    tool = [f["part"] for f in frames if f["type"] == "tool"][-1]
    assert tool["state"] == "output-error"
    llm.enqueue(ScriptedTurn(blocks=[Text(text="back")]))
    assert text_of(await prime.turn(session_id, "again")) == "back"


async def test_the_models_without_a_session_name_the_servers_default(prime: PrimeClient) -> None:
    assert (await prime.get("chat/models"))["current"] == {"provider": "scripted", "id": "m1"}


@pytest.mark.prime(default_model="nosuchprovider/m7")
async def test_a_default_that_does_not_resolve_is_named_as_written(prime: PrimeClient) -> None:
    assert (await prime.get("chat/models"))["current"] == {"provider": "nosuchprovider", "id": "m7"}


async def test_the_model_can_be_switched(prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: object) -> None:
    session_id = await prime.new_session()
    models = await prime.get("chat/models", sessionId=session_id)
    assert models["current"] == {"provider": "scripted", "id": "m1"}
    scripted = next(m for m in models["models"] if m["provider"] == "scripted")
    assert scripted["available"] and scripted["contextWindow"] == 100_000
    await prime.post("chat/model", {"sessionId": session_id, "model": {"provider": "scripted", "id": "m2"}})
    assert (await prime.session(session_id))["model"] == {"provider": "scripted", "id": "m2"}
    llm.enqueue(ScriptedTurn(blocks=[Text(text="from m1")]))
    frames = await prime.turn(session_id, "hi", model={"provider": "scripted", "id": "m1"})
    assert [f for f in frames if f["type"] == "model"] == []  # switched before the run's stream began
    assert json.loads(json.dumps(llm.requests[-1].body))["model"] == "m1"


async def test_the_models_and_a_new_session_say_the_thinking_level_that_runs(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path
) -> None:
    """Issue 31 item 3: the panel's picker said "off" while a new session on a reasoning model ran at
    "medium": neither `chat/models` nor `chat/new` said which level a new session runs at."""
    models = json.loads((agent_dir / "models.json").read_text())
    models["providers"]["scripted"]["models"][0]["reasoning"] = True
    (agent_dir / "models.json").write_text(json.dumps(models))
    assert (await prime.get("chat/models"))["thinkingLevel"] == "medium"
    made = await prime.post("chat/new", {})
    assert (made["model"], made["thinkingLevel"]) == ({"provider": "scripted", "id": "m1"}, "medium")
    llm.enqueue(ScriptedTurn(blocks=[Text(text="thought")]))
    await prime.turn(made["session"]["sessionId"], "hi")
    assert "thinking" in json.loads(json.dumps(llm.requests[-1].body))
