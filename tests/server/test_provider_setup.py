"""Setting up a provider from JupyterLab (issue 31 item 11): the `chat/providers` routes on a real server,
the scripted LLM server standing in for Anthropic's API and for a local OpenAI-compatible one."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from kit.server import PrimeClient, text_of

from prime_jupyter.testing import HttpError, ScriptedLLMServer, ScriptedTurn, Text

KEY = "sk-ant-setup-test-0123456789"


@pytest.fixture(autouse=True)
def _no_keys_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def _anthropic(llm: ScriptedLLMServer, **extra: object) -> dict[str, object]:
    return {"kind": "anthropic", "key": KEY, "baseUrl": llm.base_url, "model": "claude-sonnet-5-5", **extra}


async def test_the_providers_say_where_keys_come_from_and_never_the_key(prime: PrimeClient, agent_dir: Path) -> None:
    reply = await prime.get("chat/providers")
    by_name = {p["provider"]: p for p in reply["providers"]}
    assert by_name["anthropic"]["keySet"] is False and by_name["anthropic"]["kind"] == "anthropic"
    scripted = by_name["scripted"]
    assert scripted["kind"] == "openai-compatible" and scripted["keySet"] is True
    assert "models.json" in scripted["keySource"] and scripted["models"] == ["m1"]
    assert reply["editable"] is True and reply["agentDir"] == str(agent_dir)
    assert '"k"' not in json.dumps(reply)  # the scripted provider's apiKey


async def test_a_test_makes_one_request_with_the_forms_values_and_saves_nothing(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    reply = await prime.post("chat/providers/test", _anthropic(llm))
    assert reply == {"ok": True, "model": {"provider": "anthropic", "id": "claude-sonnet-5-5"}, "answer": "ok"}
    request = llm.requests[-1]
    assert request.headers["authorization"] == f"Bearer {KEY}" and request.body["model"] == "claude-sonnet-5-5"
    assert not (agent_dir / "auth.json").exists()
    assert "anthropic" not in json.loads((agent_dir / "models.json").read_text())["providers"]


async def test_a_refused_key_is_reported_as_the_provider_said(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[], fault=HttpError(status=401, message="invalid x-api-key")))
    reply = await prime.post("chat/providers/test", _anthropic(llm))
    assert reply["ok"] is False and "invalid x-api-key" in reply["error"]
    assert "answer" not in reply


async def test_a_test_without_a_key_says_to_paste_one(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    reply = await prime.post("chat/providers/test", _anthropic(llm, key=""))
    assert reply["ok"] is False and "paste the key for anthropic" in reply["error"]
    assert llm.requests == []


@pytest.mark.prime(default_model=None)
async def test_a_saved_anthropic_key_runs_the_next_session(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path
) -> None:
    settings = json.loads((agent_dir / "settings.json").read_text())
    reply = await prime.post("chat/providers", _anthropic(llm))
    assert KEY not in json.dumps(reply)
    auth = agent_dir / "auth.json"
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert json.loads(auth.read_text())["anthropic"]["key"] == KEY
    assert json.loads((agent_dir / "models.json").read_text())["providers"]["anthropic"] == {"baseUrl": llm.base_url}
    saved = json.loads((agent_dir / "settings.json").read_text())
    assert saved == {**settings, "defaultProvider": "anthropic", "defaultModel": "anthropic/claude-sonnet-5-5"}
    anthropic = next(p for p in reply["providers"] if p["provider"] == "anthropic")
    assert anthropic["keySet"] is True and "auth.json" in anthropic["keySource"]
    assert anthropic["baseUrl"] == llm.base_url
    assert reply["defaultModel"] == {"provider": "anthropic", "id": "claude-sonnet-5-5"}

    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="hello from the set-up provider")]))
    assert text_of(await prime.turn(session_id, "hi")) == "hello from the set-up provider"
    assert llm.requests[-1].headers["authorization"] == f"Bearer {KEY}"
    assert llm.requests[-1].body["model"] == "claude-sonnet-5-5"


async def test_saving_without_a_base_url_goes_back_to_the_providers_own(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path
) -> None:
    await prime.post("chat/providers", _anthropic(llm))
    reply = await prime.post("chat/providers", _anthropic(llm, key=None, baseUrl=""))
    assert "anthropic" not in json.loads((agent_dir / "models.json").read_text())["providers"]
    assert json.loads((agent_dir / "auth.json").read_text())["anthropic"]["key"] == KEY  # kept
    assert next(p for p in reply["providers"] if p["provider"] == "anthropic").get("baseUrl") is None


@pytest.mark.prime(default_model=None)
async def test_a_local_server_is_declared_and_runs_without_a_key(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path
) -> None:
    form = {"kind": "openai-compatible", "provider": "lab", "baseUrl": f"{llm.base_url}/v1/", "model": "qwen3:8b"}
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    assert (await prime.post("chat/providers/test", form))["ok"] is True
    assert llm.requests[-1].path.endswith("/v1/chat/completions")
    await prime.post("chat/providers", form)
    declared = json.loads((agent_dir / "models.json").read_text())["providers"]["lab"]
    assert declared == {"baseUrl": f"{llm.base_url}/v1", "api": "openai-completions", "models": [{"id": "qwen3:8b"}]}
    assert not (agent_dir / "auth.json").exists()
    await prime.post("chat/providers", {**form, "model": "llama4"})  # a second model joins the first
    models = json.loads((agent_dir / "models.json").read_text())["providers"]["lab"]["models"]
    assert models == [{"id": "qwen3:8b"}, {"id": "llama4"}]

    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="local answer")]))
    assert text_of(await prime.turn(session_id, "hi")) == "local answer"
    assert llm.requests[-1].body["model"] == "llama4"


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ({"kind": "openai-compatible", "model": "m"}, "a server needs its URL"),
        ({"kind": "openai-compatible", "baseUrl": "http://localhost:1/v1"}, "name the model"),
        ({"kind": "openai-compatible", "provider": "My Server", "baseUrl": "http://h/v1", "model": "m"}, "lower-case"),
        ({"kind": "openai-compatible", "provider": "openai", "baseUrl": "http://h/v1", "model": "m"}, "cannot name"),
        ({"kind": "anthropic", "baseUrl": "ftp://example.test"}, "not an http:// or https:// URL"),
        ({"kind": "anthropic", "baseUrl": "https://user:pw@example.test"}, "not in the URL"),
        ({"kind": "anthropic", "key": "sk-ant one\ntwo"}, "no spaces or line breaks"),
        ({"kind": "anthropic", "model": "claude sonnet"}, "has spaces"),
        ({"kind": "gemini"}, "kind"),
    ],
)
async def test_a_form_that_cannot_be_used_is_refused_with_what_to_write(
    prime: PrimeClient, agent_dir: Path, form: dict[str, object], says: str
) -> None:
    before = {p.name: p.read_bytes() for p in agent_dir.iterdir() if p.is_file()}
    for route in ("chat/providers", "chat/providers/test"):
        code, reply = await prime.status("POST", route, json.dumps(form).encode())
        assert code == 400 and says in reply["message"], (route, reply)
    assert {p.name: p.read_bytes() for p in agent_dir.iterdir() if p.is_file()} == before


@pytest.mark.prime(provider_setup=False)
async def test_an_administrator_can_turn_the_form_off(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path
) -> None:
    assert (await prime.get("chat/providers"))["editable"] is False
    for route in ("chat/providers", "chat/providers/test"):
        code, reply = await prime.status("POST", route, json.dumps(_anthropic(llm)).encode())
        assert code == 403 and "c.PrimeApp.provider_setup" in reply["message"]
    assert not (agent_dir / "auth.json").exists() and llm.requests == []
