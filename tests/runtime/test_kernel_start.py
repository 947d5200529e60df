"""When a session's kernel starts: not with the session, not for a run that writes no code, and as the model
begins an `ipython` call (so the start overlaps the call's streaming), with real kernels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prime_jupyter.protocol.events import SessionEvent, ToolExecutionStart
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


def session_in(tmp_path: Path, llm: ScriptedLLMServer) -> AgentSession:
    home = tmp_path / "agent"
    home.mkdir()
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "m1"}]}
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    options = SessionOptions(cwd=tmp_path, model="scripted/m1", tools=["ipython"], agent_dir=home)
    return create_agent_session(options)


@pytest.mark.asyncio
async def test_a_session_that_only_talks_starts_no_kernel(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = session_in(tmp_path, llm)
    try:
        assert session.kernel is not None and session.kernel.state == "stopped"
        llm.enqueue(ScriptedTurn(blocks=[Text(text="Hello.")]))
        await session.prompt("hi")
        assert session.kernel.state == "stopped" and session.kernel.kernel_id is None
    finally:
        await session.dispose()


@pytest.mark.asyncio
async def test_the_kernel_starts_as_the_model_begins_an_ipython_call(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = session_in(tmp_path, llm)
    kernel = session.kernel
    assert kernel is not None
    at_execution: list[str] = []

    def on_event(event: SessionEvent) -> None:
        if isinstance(event, ToolExecutionStart):
            at_execution.append(kernel.state)

    session.subscribe(on_event)
    try:
        code = "print(6 * 7)"
        llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": code})], chunk_delay_s=0.05))
        llm.enqueue(ScriptedTurn(blocks=[Text(text="42")]))
        await session.prompt("compute")
        # The tool had not asked for the kernel yet, and it was already on its way (or up).
        assert at_execution and at_execution[0] in ("starting", "idle"), at_execution
        assert kernel.kernel_id is not None
        result = json.dumps(llm.requests[-1].body)
        assert "42" in result
    finally:
        await session.dispose()
    assert kernel.state == "stopped"
