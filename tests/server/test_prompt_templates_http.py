"""Prompt templates in a server: `POST chat` with `/<name> args` (what the panel sends) runs the template's
prompt."""

from __future__ import annotations

from pathlib import Path

from kit.server import PrimeClient

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text


async def test_a_template_expands_in_a_chat_turn(prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path) -> None:
    (agent_dir / "prompts").mkdir()
    (agent_dir / "prompts" / "explain.md").write_text("---\ndescription: explain a name\n---\nExplain `$1` briefly.")
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="It is a frame.")]))
    await prime.turn(session_id, "/explain df")
    body = llm.requests[-1].body
    assert isinstance(body, dict)
    assert body["messages"][-1]["content"][0]["text"] == "Explain `df` briefly."
