"""Issue 15: agent kernels are bounded. A cap on live agent kernels (`c.PrimeApp.max_kernels`) refuses a
start over it with what to do; idle ones are culled (`c.PrimeApp.cull_idle_timeout`, Jupyter's culling
semantics) and the session's next `ipython` call gets a fresh kernel and is told its state is gone."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

import pytest
from kit.server import Json, PrimeClient

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


async def kernel_until(prime: PrimeClient, done: Callable[[Json], bool], wait_s: float = 60) -> Json:
    """`info`'s kernel status once `done` holds (polled; fails after `wait_s`)."""
    deadline = time.monotonic() + wait_s
    while not done(kernel := (await prime.get("info"))["kernel"]):
        assert time.monotonic() < deadline, kernel
        await asyncio.sleep(0.05)
    return kernel


async def run_code(prime: PrimeClient, llm: ScriptedLLMServer, session_id: str, code: str) -> Json:
    """The `ipython` tool part of a turn that runs `code`."""
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": code})]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="done")]))
    frames = await prime.turn(session_id, "run it")
    part: Json = [f["part"] for f in frames if f["type"] == "tool"][-1]
    return part


async def server_kernels(prime: PrimeClient) -> list[Json]:
    kernels = (await prime.status("GET", "../../api/kernels"))[1]
    assert isinstance(kernels, list)
    return kernels


@pytest.mark.prime(max_kernels=1)
@pytest.mark.prime_settings(tools=["ipython"])
async def test_a_kernel_over_the_cap_is_refused_saying_what_to_do(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    first = await prime.new_session()
    assert (await run_code(prime, llm, first, "print('first')"))["state"] == "output-available"
    kernel = await kernel_until(prime, lambda k: not k["ready"])  # the one kernel allowed runs
    assert "c.PrimeApp.max_kernels" in kernel["reason"] and kernel["running"] == 1
    second = await prime.new_session()
    part = await run_code(prime, llm, second, "print('hi')")
    told = json.dumps(part)
    assert part["state"] == "output-error" and "already runs 1 agent kernels" in told and "close a session" in told
    assert len(await server_kernels(prime)) == 1
    await prime.call("DELETE", "chat/sessions", {"sessionId": first})  # frees the slot
    assert "reason" not in await kernel_until(prime, lambda k: k["ready"])  # ready again at once
    part = await run_code(prime, llm, second, "print('now there is room')")
    assert part["state"] == "output-available" and "now there is room" in json.dumps(part)


@pytest.mark.prime(cull_idle_timeout=1, cull_interval=1)
@pytest.mark.prime_settings(tools=["ipython"])
async def test_an_idle_kernel_is_culled_and_the_next_call_gets_a_fresh_one_and_a_notice(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session()
    part = await run_code(prime, llm, session_id, "remembered = 42\nprint(remembered)")
    assert part["state"] == "output-available"
    (culled,) = await server_kernels(prime)
    await kernel_until(prime, lambda k: k["running"] == 0)  # culled; the session stays open
    deadline = time.monotonic() + 60
    while await server_kernels(prime):  # the shutdown finishes
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    assert (await prime.session(session_id))["session"]["sessionId"] == session_id
    part = await run_code(prime, llm, session_id, "print(remembered)")
    told = json.dumps(part)
    assert "idle culling" in told and "state from earlier calls are gone" in told and "NameError" in told
    (fresh,) = await server_kernels(prime)
    assert fresh["id"] != culled["id"]


@pytest.mark.prime_settings(tools=["ipython"])
async def test_without_the_settings_kernels_are_neither_capped_nor_culled(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    for _ in range(2):
        await run_code(prime, llm, await prime.new_session(), "print('ran')")
    kernel = await kernel_until(prime, lambda k: k["running"] == 2)
    assert kernel["ready"]


def test_under_jupyterhub_idle_agent_kernels_are_culled_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    from traitlets.config import Config

    from prime_jupyter.server.app import PrimeApp
    from prime_jupyter.server.config import HUB_CULL_IDLE_TIMEOUT_S

    for name in ("JUPYTERHUB_SERVICE_PREFIX", "JUPYTERHUB_API_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    assert PrimeApp().cull_idle_timeout == 0  # a server of one's own: nothing culled unless asked
    monkeypatch.setenv("JUPYTERHUB_SERVICE_PREFIX", "/user/alice/")
    assert PrimeApp().cull_idle_timeout == HUB_CULL_IDLE_TIMEOUT_S == 3600
    config = Config()
    config.PrimeApp.cull_idle_timeout = 0
    assert PrimeApp(config=config).cull_idle_timeout == 0  # an administrator's setting wins
