"""What only the in-process connection offers: process-local reads of the live session."""

from __future__ import annotations

from pathlib import Path

import pytest

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.runtime.factory import SessionOptions
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text
from prime_jupyter.testing.jupyter_process import write_agent_dir


@pytest.mark.asyncio
async def test_the_header_is_the_one_of_the_session_view_and_of_the_file(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    write_agent_dir(tmp_path / "agent", llm)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    options = SessionOptions(cwd=tmp_path, model="scripted/m1", agent_dir=tmp_path / "agent")
    connection = InProcessAgentConnection.create(options)
    try:
        await connection.prompt("hi")
        await connection.wait_for_idle()
        header = connection.get_session_header_sync()
        assert header == (await connection.get_session_view()).header
        assert header["type"] == "session" and header["id"] == connection.session.session_id
        assert header["cwd"] == str(tmp_path.resolve())
    finally:
        await connection.dispose()
