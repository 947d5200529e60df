"""`c.PrimeApp.allowed_models`: the models a server lets sessions use, as `provider/id` patterns. The
others are not listed for the pickers, asking for one answers 403 naming the allowed ones, and a saved
session whose model is no longer allowed goes on with the default one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit.server import PrimeClient

from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

M1, M2 = {"provider": "scripted", "id": "m1"}, {"provider": "scripted", "id": "m2"}


@pytest.fixture
def two_models(agent_dir: Path) -> Path:
    models = json.loads((agent_dir / "models.json").read_text())
    models["providers"]["scripted"]["models"].append({"id": "m2", "contextWindow": 50_000, "maxTokens": 2048})
    (agent_dir / "models.json").write_text(json.dumps(models))
    return agent_dir


@pytest.mark.prime(allowed_models=["scripted/m1"])
async def test_only_allowed_models_are_listed_and_the_others_refused(
    two_models: Path, prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    listed = await prime.get("chat/models")
    assert [(m["provider"], m["id"]) for m in listed["models"]] == [("scripted", "m1")]  # no built-in either
    for refused in (M2, {"provider": "anthropic", "id": "claude-sonnet-4-5"}):
        code, reply = await prime.status("POST", "chat/new", json.dumps({"model": refused}).encode())
        assert code == 403, reply
        assert f"{refused['provider']}/{refused['id']} is not allowed" in reply["message"]
        assert "scripted/m1" in reply["message"]
    session_id = await prime.new_session()
    assert (await prime.session(session_id))["model"] == M1
    body = json.dumps({"sessionId": session_id, "model": M2}).encode()
    code, reply = await prime.status("POST", "chat/model", body)
    assert code == 403 and "scripted/m1" in reply["message"], reply
    assert (await prime.session(session_id))["model"] == M1
    listed = await prime.get("chat/models", sessionId=session_id)
    assert [(m["provider"], m["id"]) for m in listed["models"]] == [("scripted", "m1")]
    llm.enqueue(ScriptedTurn(blocks=[Text(text="still m1")]))
    await prime.turn(session_id, "hi")
    assert llm.requests[-1].body["model"] == "m1"  # type: ignore[index]


@pytest.mark.prime(allowed_models=["scripted/*"])
async def test_a_pattern_allows_a_whole_provider(two_models: Path, prime: PrimeClient) -> None:
    listed = await prime.get("chat/models")
    assert {(m["provider"], m["id"]) for m in listed["models"]} == {("scripted", "m1"), ("scripted", "m2")}
    code, _reply = await prime.status("POST", "chat/new", json.dumps({"model": M2}).encode())
    assert code == 200


def test_a_saved_session_on_a_model_no_longer_allowed_goes_on_with_the_default(
    two_models: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (two_models / "settings.json").write_text(json.dumps({"defaultModel": "scripted/m2", "tools": ["read"]}))
    before = create_agent_session(SessionOptions(cwd=work, model="scripted/m2", tools=["read"], agent_dir=two_models))
    assert before.model.id == "m2"
    before.save()
    path = before.transcript_path
    allowed = ("scripted/m1",)
    after = create_agent_session(
        SessionOptions(cwd=work, mode="resume", resume=str(path), agent_dir=two_models, allowed_models=allowed)
    )
    assert (after.model.provider, after.model.id) == ("scripted", "m1")  # settings.json's m2 is not allowed either
    assert after.manager.build_context().model_id == "m1"  # recorded as a model change
