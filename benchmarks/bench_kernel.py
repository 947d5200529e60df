"""Round trip of the `ipython` tool against a raw jupyter_client execute, and kernel start-up time.

    python benchmarks/bench_kernel.py [--iterations 200] [--starts 3]

Both paths run `1+1` on the same warm kernel, in the same process, interleaved (tool, raw, tool, ...).
"Raw" is what any client must do at least: send `execute_request`, read iopub until this request's
`status: idle`, read its `execute_reply`. The tool adds the fault policy (abort/time-limit watch,
liveness check), output folding and the model-facing rendering. Target: at most 1 ms added.
Start-up is from creating a provisioner to a ready kernel with the helpers loaded (`ensure()`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import uuid
from collections.abc import Mapping
from typing import Any

from jupyter_client.multikernelmanager import AsyncMultiKernelManager

from prime_jupyter.ai.abort import AbortController
from prime_jupyter.kernel.managed import ManagedKernelOps, launch_managed
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner
from prime_jupyter.tools.ipython import IpythonParams, make_ipython_tool

CODE = "1+1"


class _Launcher:
    def __init__(self) -> None:
        self.manager = AsyncMultiKernelManager(kernel_manager_class="jupyter_client.manager.AsyncKernelManager")

    async def launch(self, *, kernel_name: str, cwd: str, env: Mapping[str, str] | None = None) -> ManagedKernelOps:
        return await launch_managed(self.manager, kernel_name=kernel_name, cwd=cwd)


async def _raw_round_trip(client: Any) -> float:
    started = time.perf_counter()
    msg_id = client.execute(CODE)
    while True:
        msg = await client.iopub_channel.get_msg()
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status":
            if msg["content"]["execution_state"] == "idle":
                break
    while (await client.shell_channel.get_msg())["parent_header"].get("msg_id") != msg_id:
        pass
    return time.perf_counter() - started


async def _start_times(launcher: _Launcher, cwd: str, starts: int) -> list[float]:
    times = []
    for _ in range(starts):
        started = time.perf_counter()
        provisioner = IpythonKernelProvisioner(launcher, cwd)
        await provisioner.ensure()
        times.append(time.perf_counter() - started)
        await provisioner.dispose()
    return times


def _ms(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[int(len(values) * 0.9) - 1]
    return f"median {statistics.median(values) * 1000:7.3f} ms   p90 {p90 * 1000:7.3f} ms"


async def main(iterations: int, starts: int) -> None:
    launcher = _Launcher()
    cwd = tempfile.mkdtemp(prefix="bench-kernel-")
    start_times = await _start_times(launcher, cwd, starts)
    provisioner = IpythonKernelProvisioner(launcher, cwd)
    ops = await provisioner.ensure()
    tool = make_ipython_tool(provisioner, accepts_images=True)
    raw = launcher.manager.get_kernel(ops.kernel_id).client()
    raw.session.session = str(uuid.uuid4())
    raw.start_channels()
    await raw.wait_for_ready(timeout=30)

    async def tool_round_trip() -> float:
        started = time.perf_counter()
        await tool.execute("bench", IpythonParams(code=CODE), AbortController().signal, lambda _u: None)
        return time.perf_counter() - started

    for _ in range(20):  # warm-up
        await tool_round_trip()
        await _raw_round_trip(raw)
    tool_times, raw_times = [], []
    for _ in range(iterations):
        tool_times.append(await tool_round_trip())
        raw_times.append(await _raw_round_trip(raw))
    raw.stop_channels()
    await provisioner.dispose()
    await launcher.manager.shutdown_all()

    added = (statistics.median(tool_times) - statistics.median(raw_times)) * 1000
    ratio = statistics.median(tool_times) / statistics.median(raw_times)
    print(f"kernel round trip of {CODE!r}, {iterations} iterations each, interleaved, warm kernel")
    print(f"  ipython tool     {_ms(tool_times)}")
    print(f"  raw jupyter_client {_ms(raw_times)}")
    paired = statistics.median(t - r for t, r in zip(tool_times, raw_times, strict=True)) * 1000
    print(f"  tool adds        {added:+.3f} ms (ratio {ratio:.3f}; target: at most +1 ms)")
    print(f"  median of paired differences (tool - raw, neighbours in time) {paired:+.3f} ms")
    print(f"provisioner creation -> ready kernel (helpers loaded), {starts} cold starts")
    print(f"  {', '.join(f'{t:.3f} s' for t in start_times)}; median {statistics.median(start_times):.3f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--starts", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.iterations, args.starts))
