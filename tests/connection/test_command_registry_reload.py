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
