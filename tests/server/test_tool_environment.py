"""The agent's kernels and commands in a server do not get the provider keys of the server's environment
(nor the variables `c.PrimeApp.hidden_environment` names): the code the model writes, and a `!cmd` typed
in the panel, could otherwise read the administrator's keys. Everything else of the environment stays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit.server import PrimeClient

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

PRESENT = {
    "ANTHROPIC_API_KEY": "sk-ant-admin-0000",
    "OPENAI_API_KEY": "sk-admin-1111",
    "TEAM_LLM_KEY": "team-key-2222",  # the models.json apiKey of the provider names it
    "SERVICE_TOKEN": "tok-3333",  # hidden by the administrator's pattern
    "KEEP_ME": "kept-4444",
}
SHELL = "for v in " + " ".join(PRESENT) + ' ; do [ -n "${!v+x}" ] && echo $v; done; true'
PYTHON = f"import os\nprint(' '.join(v for v in {sorted(PRESENT)!r} if v in os.environ))"


@pytest.fixture
def environment(agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    models = json.loads((agent_dir / "models.json").read_text())
    models["providers"]["scripted"]["apiKey"] = "TEAM_LLM_KEY"
    (agent_dir / "models.json").write_text(json.dumps(models))
    for name, value in PRESENT.items():
        monkeypatch.setenv(name, value)


def tool_texts(frames: list[dict[str, object]]) -> list[str]:
    parts = [frame["part"] for frame in frames if frame["type"] == "tool"]
    done = [p for p in parts if isinstance(p, dict) and p.get("state") == "output-available"]
    return [str(p["output"]["content"][0]["text"]).strip() for p in done]  # type: ignore[index]


@pytest.mark.prime(hidden_environment=["*_TOKEN"])
@pytest.mark.prime_settings(tools=["bash", "ipython"])
async def test_kernels_bash_and_user_commands_run_without_the_keys(
    environment: None, prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": SHELL})]))
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": PYTHON})]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="checked")]))
    frames = await prime.turn(session_id, "which variables do you see?")
    assert tool_texts(frames) == ["KEEP_ME", "KEEP_ME"]
    body = json.dumps({"sessionId": session_id, "command": SHELL}).encode()
    code, reply = await prime.status("POST", "connection/shell", body)
    assert code == 200 and reply["output"] == "KEEP_ME", reply
    assert llm.requests[0].headers["authorization"] == f"Bearer {PRESENT['TEAM_LLM_KEY']}"  # the server keeps it
