"""The session's history and its kernel in an app attached to a real `jupyter server` subprocess: /tree
(switch and continue, fork, label and filter), /clone, and /kernel (its id and how to open a console on
it, interrupt, restart) on a kernel of the server's own kernel manager.

The server is this module's own: its sessions run the ipython tool, and their kernels go with it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from kit.server import own_jupyter
from nav_kit import (
    fork_from_the_tree,
    interrupt_a_long_call,
    label_and_filter,
    notices,
    restart_loses_the_variables,
    switch_and_continue,
    switch_with_a_summary,
    two_turns,
    user_messages,
)
from tui_kit import SIZE, answers, app_on, until

from prime_jupyter.connection import ServerTarget, open_connection
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.testing import ScriptedLLMServer
from prime_jupyter.testing.jupyter_process import TOKEN, JupyterProcess, write_agent_dir


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    yield from own_jupyter(tmp_path_factory, "tui-nav-attach")


@pytest.fixture
def server(jupyter: JupyterProcess, llm: ScriptedLLMServer) -> JupyterProcess:
    """The server, its agent on this test's scripted LLM, its sessions with the ipython tool."""
    write_agent_dir(jupyter.agent_dir, llm)
    settings = json.loads((jupyter.agent_dir / "settings.json").read_text())
    (jupyter.agent_dir / "settings.json").write_text(json.dumps({**settings, "tools": ["bash", "read", "ipython"]}))
    return jupyter


async def attach(server: JupyterProcess) -> AgentConnection:
    target = ServerTarget(cwd=server.root_dir / "work", url=server.endpoint.url, token=TOKEN, model="scripted/m1")
    return await open_connection(target)


@pytest.mark.asyncio
async def test_attached_tree_switches_branch_continues_and_summarises(
    server: JupyterProcess, llm: ScriptedLLMServer
) -> None:
    connection = await attach(server)
    try:
        async with app_on(connection, attached=True).run_test(size=SIZE) as pilot:
            await switch_and_continue(pilot, connection, llm)
            await pilot.press(*"/new", "enter")
            await until(pilot, lambda: not user_messages(pilot.app))  # type: ignore[arg-type]
            await switch_with_a_summary(pilot, connection, llm)
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_attached_tree_forks_and_labels(server: JupyterProcess, llm: ScriptedLLMServer) -> None:
    connection = await attach(server)
    try:
        async with app_on(connection, attached=True).run_test(size=SIZE) as pilot:
            await label_and_filter(pilot, connection, llm)
            await pilot.press(*"/new", "enter")
            await until(pilot, lambda: not user_messages(pilot.app))  # type: ignore[arg-type]
            await fork_from_the_tree(pilot, connection, llm)
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_attached_clone_copies_the_branch(server: JupyterProcess, llm: ScriptedLLMServer) -> None:
    connection = await attach(server)
    try:
        app = app_on(connection, attached=True)
        async with app.run_test(size=SIZE) as pilot:
            await two_turns(pilot, llm)
            source = (await connection.get_state()).session_id
            await pilot.press(*"/clone", "enter")
            await until(pilot, lambda: connection.session_id != source)  # type: ignore[attr-defined]
            await until(pilot, lambda: user_messages(app) == ["first", "second"] and "a2" in answers(app))
            state = await connection.get_state()
            assert state.header.get("parentSession") and state.message_count == 4
            listed = {s.session_id for s in (await connection.list_sessions("all")).sessions}
            assert {source, state.session_id} <= listed  # the source keeps running in the server
    finally:
        await connection.dispose()


@pytest.mark.asyncio
async def test_attached_kernel_shows_its_id_interrupts_and_restarts(
    server: JupyterProcess, llm: ScriptedLLMServer
) -> None:
    connection = await attach(server)
    try:
        app = app_on(connection, attached=True)
        async with app.run_test(size=SIZE) as pilot:
            await interrupt_a_long_call(pilot, llm)
            kernel_id = (await connection.get_state()).kernel_id
            assert kernel_id is not None
            headers = {"Authorization": f"token {TOKEN}"}
            async with httpx.AsyncClient(base_url=server.endpoint.url, headers=headers) as http:
                listed = (await http.get("api/kernels")).json()
            assert kernel_id in {kernel["id"] for kernel in listed}  # a kernel of the server's kernel manager
            await pilot.press(*"/kernel", "enter")
            hint = f"jupyter console --existing kernel-{kernel_id}.json"
            await until(pilot, lambda: any(hint in text for text in notices(app)))
            assert (server.runtime_dir / f"kernel-{kernel_id}.json").is_file()  # what the hint opens
            await restart_loses_the_variables(pilot, llm)
            assert (await connection.get_state()).kernel_state == "idle"
    finally:
        await connection.dispose()
