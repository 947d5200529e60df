"""The in-process connection's command registry follows `/reload`: a template written after the session
opened is listed (and expands) once the session reloads its resources."""

from __future__ import annotations

from pathlib import Path

import pytest

from prime_jupyter.testing import ScriptedLLMServer
from prime_jupyter.testing.jupyter_process import write_agent_dir


@pytest.mark.asyncio
async def test_reload_lists_a_new_template_in_the_registry(
    tmp_path: Path, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prime_jupyter.connection import LocalTarget, open_connection
    from prime_jupyter.connection.in_process import InProcessAgentConnection

    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))
    write_agent_dir(tmp_path / "agent", llm)
    connection = await open_connection(LocalTarget(cwd=tmp_path, model="scripted/m1", agent_dir=tmp_path / "agent"))
    try:
        assert isinstance(connection, InProcessAgentConnection)
        assert "review" not in [c.name for c in connection.extensions.commands()]
        prompts = tmp_path / "agent" / "prompts"
        prompts.mkdir()
        (prompts / "review.md").write_text("---\ndescription: review a file\nargument-hint: <path>\n---\nReview $1.")
        assert connection.reload_resources() == []
        listed = {c.name: c for c in connection.extensions.commands()}
        assert (listed["review"].description, listed["review"].arguments, listed["review"].source) == (
            "review a file",
            "<path>",
            "template",
        )
        assert "model" in listed
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_reload_typed_as_a_prompt_reloads_and_says_what_it_found(
    tmp_path: Path, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prime_jupyter.connection import LocalTarget, open_connection
    from prime_jupyter.connection.types import SessionEventReceived
    from prime_jupyter.protocol.events import Notify

    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))
    write_agent_dir(tmp_path / "agent", llm)
    connection = await open_connection(LocalTarget(cwd=tmp_path, model="scripted/m1", agent_dir=tmp_path / "agent"))
    told: list[str] = []
    connection.subscribe(
        lambda e: (
            told.append(e.event.message)
            if isinstance(e, SessionEventReceived) and isinstance(e.event, Notify)
            else None
        )
    )
    try:
        (tmp_path / "agent" / "prompts").mkdir()
        (tmp_path / "agent" / "prompts" / "tidy.md").write_text("Tidy $@.")
        await connection.prompt("/reload")
        await connection.wait_for_idle()
        assert told == ["Reloaded the prompt templates and skills: 1 prompt templates and 0 skills."]
        assert "tidy" in [c.name for c in connection.extensions.commands()]
        assert llm.requests == []
    finally:
        await connection.dispose()
