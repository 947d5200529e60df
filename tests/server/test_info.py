"""`GET info`, kernel readiness and counts, and what importing the extension costs (no SDK, no textual)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from kit.server import Json, PrimeClient

from prime_jupyter._version import __version__
from prime_jupyter.protocol.version import CAP_CONNECTION, CAPABILITIES, PROTOCOL_VERSION, SCHEMA_REVISION
from prime_jupyter.server.info import SERVED_CAPABILITIES
from prime_jupyter.server.routes import has_connection_routes
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

IDLE = {"ready": True, "starting": 0, "running": 0}


async def test_info_reports_versions_capabilities_and_the_kernel(prime: PrimeClient) -> None:
    info = await prime.get("info")
    assert info["version"] == __version__
    assert (info["protocolVersion"], info["schemaRevision"]) == (PROTOCOL_VERSION, SCHEMA_REVISION)
    expected = [c for c in CAPABILITIES if c != CAP_CONNECTION or has_connection_routes()]
    assert info["capabilities"] == expected
    assert info["kernel"] == IDLE


@pytest.mark.prime(kernel_name="no-such-kernel")
async def test_a_missing_kernel_spec_is_reported(prime: PrimeClient) -> None:
    kernel = (await prime.get("info"))["kernel"]
    assert kernel["ready"] is False and "no-such-kernel" in kernel["reason"]


async def kernel_until(prime: PrimeClient, done: Callable[[Json], bool], wait_s: float = 60) -> Json:
    """`info`'s kernel status once `done` holds (polled; fails after `wait_s`)."""
    deadline = time.monotonic() + wait_s
    while not done(kernel := (await prime.get("info"))["kernel"]):
        assert time.monotonic() < deadline, kernel
        await asyncio.sleep(0.05)
    return kernel


async def run_code(prime: PrimeClient, llm: ScriptedLLMServer, session_id: str) -> None:
    """A turn whose model calls `ipython` once (the first code the session runs starts its kernel)."""
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "x = 1"})]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="done")]))
    await prime.turn(session_id, "run it")


@pytest.mark.prime_settings(tools=["ipython"])
async def test_a_session_gets_a_kernel_when_it_first_runs_code(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    assert (await prime.get("info"))["kernel"] == IDLE
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="Hello.")]))
    await prime.turn(session_id, "hi")
    assert (await prime.get("info"))["kernel"] == IDLE  # a session that only talks holds no kernel
    assert (await prime.status("GET", "../../api/kernels"))[1] == []
    await run_code(prime, llm, session_id)
    assert await kernel_until(prime, lambda k: k["starting"] == 0) == {"ready": True, "starting": 0, "running": 1}
    await prime.call("DELETE", "chat/sessions", {"sessionId": session_id})
    assert (await prime.get("info"))["kernel"] == IDLE


@pytest.mark.prime_settings(tools=["ipython"])
async def test_a_session_kernel_shut_down_elsewhere_is_not_counted(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    await run_code(prime, llm, await prime.new_session())
    await kernel_until(prime, lambda k: k["running"] == 1)
    (kernel,) = (await prime.status("GET", "../../api/kernels"))[1]
    assert (await prime.status("DELETE", f"../../api/kernels/{kernel['id']}"))[0] == 204  # from JupyterLab, say
    assert (await prime.get("info"))["kernel"] == IDLE


@pytest.mark.prime(kernel_name="prime-broken")
@pytest.mark.prime_settings(tools=["ipython"])
async def test_a_failed_kernel_start_makes_kernels_not_ready(
    prime: PrimeClient, llm: ScriptedLLMServer, jp_kernel_dir: Path
) -> None:
    spec = jp_kernel_dir / "prime-broken"
    spec.mkdir()
    argv = [str(spec / "no-such-interpreter"), "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "Broken", "language": "python"}))
    assert (await prime.get("info"))["kernel"] == IDLE  # the spec is there
    await run_code(prime, llm, await prime.new_session())
    kernel = await kernel_until(prime, lambda k: not k["ready"])
    assert (kernel["starting"], kernel["running"]) == (0, 0) and "did not start" in kernel["reason"]


def test_importing_the_extension_stays_light() -> None:
    probe = (
        "import sys, json\n"
        "from prime_jupyter import _jupyter_server_extension_points as points\n"
        "points()\n"
        "import prime_jupyter.server.app, prime_jupyter.server.routes\n"
        "heavy = ('anthropic', 'openai', 'textual', 'httpx', 'ipykernel', 'IPython', 'prime_jupyter.kernel.managed')\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == []


def test_the_served_capabilities_say_what_the_route_table_installs() -> None:
    assert (CAP_CONNECTION in SERVED_CAPABILITIES) == has_connection_routes()
    assert set(SERVED_CAPABILITIES) <= set(CAPABILITIES)
