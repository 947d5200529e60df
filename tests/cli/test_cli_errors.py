"""What `jupyter prime -p` says when the provider refuses (issue 17, item 8): which key was used and how
to fix it, the closest model names, and every retry as it starts; subprocesses against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit.cli import prime
from kit.net import hanging_port

from prime_jupyter.testing import HttpError, ScriptedLLMServer, ScriptedTurn, Text
from prime_jupyter.testing.jsonl import lines
from prime_jupyter.testing.jupyter_process import free_port

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess

KEY = "sk-ant-not-valid-5f3a9c"


def refuse(llm: ScriptedLLMServer, status: int, message: str) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="never")], fault=HttpError(status=status, message=message)))


def test_a_refused_key_from_the_environment_names_the_variable(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    refuse(llm, 401, "invalid x-api-key")
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": llm.base_url}
    done = prime(agent_dir, "--model", "anthropic/claude-sonnet-5-5", "-p", "hi", env=env)
    assert done.returncode == 1
    assert lines(done.stderr)[0] == (
        "error: 401 invalid x-api-key: the API key for 'anthropic' from the environment variable "
        "ANTHROPIC_API_KEY was refused; set ANTHROPIC_API_KEY to a valid key"
    )
    assert KEY not in done.stderr and KEY[-8:] not in done.stderr


def test_a_refused_key_from_a_file_names_the_file(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    (agent_dir / "auth.json").write_text(json.dumps({"anthropic": {"type": "api_key", "key": KEY}}))
    refuse(llm, 401, "invalid x-api-key")
    env = {"ANTHROPIC_BASE_URL": llm.base_url}
    done = prime(agent_dir, "--model", "anthropic/claude-sonnet-5-5", "-p", "hi", env=env)
    assert done.returncode == 1
    auth = agent_dir / "auth.json"
    expected = f'from {auth} ("anthropic") was refused; replace it there (or set ANTHROPIC_API_KEY)'
    assert expected in lines(done.stderr)[0] and KEY not in done.stderr
    models = json.loads((agent_dir / "models.json").read_text())
    models["providers"]["scripted"]["apiKey"] = "SCRIPTED_KEY"
    (agent_dir / "models.json").write_text(json.dumps(models))
    refuse(llm, 401, "invalid x-api-key")
    custom = prime(agent_dir, "--model", "scripted/m1", "-p", "hi", env={"SCRIPTED_KEY": KEY})
    assert custom.returncode == 1 and KEY not in custom.stderr
    assert (
        f"from the environment variable SCRIPTED_KEY (the apiKey of 'scripted' in {agent_dir / 'models.json'}) "
        "was refused; set SCRIPTED_KEY to a valid key" in custom.stderr
    )


def test_an_unknown_model_lists_the_closest_names(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    refuse(llm, 404, "model: claude-sonet-4-5")
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": llm.base_url}
    done = prime(agent_dir, "--model", "anthropic/claude-sonet-4-5", "-p", "hi", env=env)
    assert done.returncode == 1
    error = next(line for line in lines(done.stderr) if line.startswith("error:"))
    assert error.startswith("error: 404 model: claude-sonet-4-5: 'claude-sonet-4-5' is not a model of 'anthropic'; ")
    assert "did you mean claude-sonnet-4-5" in error
    warned = "model 'claude-sonet-4-5' is not known for provider 'anthropic' (did you mean claude-sonnet-4-5"
    assert warned in done.stderr  # before the model was asked, too
    refuse(llm, 404, "model: zzz")
    nothing_close = prime(agent_dir, "--model", "scripted/zzz", "-p", "hi")
    assert "'zzz' is not a model of 'scripted'; its known models: m1" in nothing_close.stderr


def test_each_retry_is_said_on_stderr_as_it_starts(agent_dir: Path) -> None:
    models = json.loads((agent_dir / "models.json").read_text())
    port = free_port()  # nobody listens there: the provider is down
    down = {"baseUrl": f"http://127.0.0.1:{port}", "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "m1"}]}
    models["providers"]["down"] = down
    (agent_dir / "models.json").write_text(json.dumps(models))
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 10, "maxRetries": 2}}))
    done = prime(agent_dir, "--model", "down/m1", "--tools", "read", "-p", "hi")
    assert done.returncode == 1
    said = lines(done.stderr)
    why = f'"cannot reach http://127.0.0.1:{port}/v1/messages: Connection refused"'
    assert said[:2] == [
        f"prime: retrying in 0.01 s (attempt 1/2) after {why}",
        f"prime: retrying in 0.02 s (attempt 2/2) after {why}",
    ]
    assert said[2] == f"error: {why[1:-1]}"


def test_a_provider_whose_connection_hangs_ends_the_run_within_90_s_saying_so(agent_dir: Path) -> None:
    """Regression (issue 25): a provider whose route drops packets kept `-p` waiting more than 300 s (one
    600 s timeout for connecting, retried). Now each attempt gives up at the 10 s connect timeout, and the
    default retries (3, after 2, 4 and 8 s) end the run in about a minute, within 90 s (the subprocess's
    timeout fails the test otherwise)."""
    models = json.loads((agent_dir / "models.json").read_text())
    with hanging_port() as port:
        url = f"http://127.0.0.1:{port}"
        models["providers"]["hung"] = {
            "baseUrl": url,
            "api": "anthropic-messages",
            "apiKey": "k",
            "models": [{"id": "m1"}],
        }
        (agent_dir / "models.json").write_text(json.dumps(models))
        done = prime(agent_dir, "--model", "hung/m1", "--tools", "read", "-p", "hi", timeout=90)
    assert done.returncode == 1
    said = lines(done.stderr)
    why = f"cannot reach {url}/v1/messages: no connection within 10 s (PRIME_CONNECT_TIMEOUT_S sets it)"
    assert said[:3] == [f'prime: retrying in {s} s (attempt {n}/3) after "{why}"' for n, s in ((1, 2), (2, 4), (3, 8))]
    assert said[3] == f"error: {why}"
