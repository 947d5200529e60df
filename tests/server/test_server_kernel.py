"""The `ipython` tool through the server's own kernel manager: the agent's kernel is a server kernel."""

from __future__ import annotations

import pytest
from kit.server import PrimeClient

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


@pytest.mark.prime_settings(tools=["ipython"])
async def test_the_ipython_tool_runs_in_a_kernel_the_server_lists(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    code = "import os\nanswer = 6 * 7\nprint(os.getpid(), answer)"
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": code})]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="42")]))
    frames = await prime.turn(session_id, "compute")
    part = [f["part"] for f in frames if f["type"] == "tool"][-1]
    assert part["type"] == "tool-IPython" and part["state"] == "output-available", part
    pid, answer = part["output"]["content"][0]["text"].split()
    assert answer == "42" and int(pid) > 0
    kernels = (await prime.status("GET", "../../api/kernels"))[1]
    assert isinstance(kernels, list) and len(kernels) == 1  # the session's kernel, from the server's manager
    await prime.call("DELETE", "chat/sessions", {"sessionId": session_id})
    assert (await prime.status("GET", "../../api/kernels"))[1] == []
