"""Server benchmark: frame latency under concurrent sessions, and what the extension costs at start-up.

**Frame latency.** A real `jupyter server` (child process, only the prime extension enabled) talks to
the scripted LLM server (another child process), which stamps the wall clock (`time.time()`) right
before it writes each chunk of its SSE stream to the Jupyter server: that is "the provider writes a
delta". Every delta carries a unique token (`<TTDDDDD>`: turn, delta), so the stamp is matched to the
NDJSON frame that carries the same token, which the benchmark (this process) stamps as soon as the chunk
holding it arrives from its `POST chat` stream. With 1 and with 20 sessions streaming at once, each
answer is `--deltas` deltas (5,000) written `--delay-ms` apart (the scripted server's `chunk_delay_s`
pacing); the figure is the distribution of read minus write over every delta of every session. The
sessions' streams start at phases spread over the pacing interval (independent users are not in step); a
second run starts them in lockstep, the worst case, where every tick brings one delta of every session
at once. A warm-up turn first pays the one-time costs (the provider SDK import, the extension's lazy
route import), which are not part of a frame's latency. The server's CPU time per delta is printed too:
the provider, this client and the server share the machine's cores, so a loaded machine shows up as
latency.

**Start-up.** `jupyter server` with and without the extension, alternating, `--runs` times each: spawn
to the first `200` of `GET /api/status` (polled every 5 ms), and the server's RSS right then. The other
server extensions are disabled in both, so the difference is the extension's. Also printed: the
extension's import and load cost inside one process (precise, unlike the noisy end-to-end difference)
and its first request (`GET prime/api/info`), which pays for the routes imported lazily.

Usage, from the repository root::

    .venv/bin/python benchmarks/bench_server.py [--deltas 5000] [--delay-ms 5] [--runs 7] [--quick]
        [--tune-process-memory]

`--tune-process-memory` starts the servers with `c.PrimeApp.tune_process_memory = True` (the collector's
freezes and malloc's thresholds, off by default since the server is a shared process), to compare.

Targets: p99 <= 5 ms at 20 sessions; extension start-up <= 150 ms and <= 15 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

import httpx

from prime_jupyter.testing import Script, ScriptedServerCore, ScriptedTurn, Text

TOKEN = re.compile(rb"<(\d{7})>")
OTHER_EXTENSIONS = ("jupyterlab", "jupyter_lsp", "notebook_shim", "jupyter_server_terminals")


# --- the provider child: the scripted server, stamping its writes -------------------------------------


async def _provider() -> None:
    """Child mode: stdin takes `{"turns": [...]}` lines to enqueue, `DUMP <path>` to write the stamps."""
    stamps: dict[str, float] = {}

    def stamp(data: bytes) -> None:
        now = time.time()
        for match in TOKEN.finditer(data):
            stamps[match.group(1).decode()] = now

    core = ScriptedServerCore(on_stream_write=stamp)
    print(f"READY {await core.start('127.0.0.1', 0)}", flush=True)
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        if line.startswith("DUMP "):
            data = json.dumps(stamps)
            stamps.clear()
            await asyncio.to_thread(Path(line[5:].strip()).write_text, data)
        else:
            core.enqueue(*Script.model_validate_json(line).turns)
        print("OK", flush=True)
    await core.close()


class Provider:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--provider"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._in, self._out = self.process.stdin, self.process.stdout
        self.url = self._out.readline().split()[1]

    def tell(self, line: str) -> None:
        self._in.write(line + "\n")
        self._in.flush()
        assert self._out.readline().strip() == "OK"

    def enqueue(self, *turns: ScriptedTurn) -> None:
        self.tell(Script(turns=list(turns)).model_dump_json())

    def stamps(self, scratch: Path) -> dict[str, float]:
        path = scratch / "stamps.json"
        self.tell(f"DUMP {path}")
        return {str(k): float(v) for k, v in json.loads(path.read_text()).items()}

    def close(self) -> None:
        self._in.close()
        self.process.wait(10)


# --- a jupyter server child ---------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


_SERVER_OPTIONS: list[str] = []
"""More `jupyter server` options for every server started (`--tune-process-memory`)."""


class Jupyter:
    def __init__(self, scratch: Path, prime: bool, agent_dir: Path | None = None) -> None:
        self.port, self.token = _free_port(), secrets.token_hex(8)
        extensions = {name: False for name in OTHER_EXTENSIONS} | {"prime_jupyter": prime}
        env = {**os.environ, "JUPYTER_CONFIG_DIR": str(scratch / "config"), "JUPYTER_RUNTIME_DIR": str(scratch / "rt")}
        command = [
            sys.executable,
            "-m",
            "jupyter_server",
            f"--ServerApp.port={self.port}",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={scratch}",
            "--ServerApp.open_browser=False",
            "--allow-root",
            f"--ServerApp.jpserver_extensions={extensions!r}",
            f"--PrimeApp.agent_dir={agent_dir or scratch / 'agent'}",
            *_SERVER_OPTIONS,
        ]
        self.started = time.perf_counter()
        self.process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.headers = {"Authorization": f"token {self.token}"}
        self.root = f"http://127.0.0.1:{self.port}/"

    def wait_ready(self) -> float:
        """Seconds from spawn to the first 200 of `GET /api/status`."""
        with httpx.Client(headers=self.headers) as client:
            while True:
                assert self.process.poll() is None, "jupyter server exited"
                try:
                    if client.get(self.root + "api/status").status_code == 200:
                        return time.perf_counter() - self.started
                except httpx.TransportError:
                    pass
                time.sleep(0.005)

    def cpu_s(self) -> float:
        """CPU seconds (user + system) the server process used so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(next(line for line in status.splitlines() if line.startswith("VmRSS")).split()[1]) / 1024

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


# --- frame latency ------------------------------------------------------------------------------------


def _answer(turn: int, deltas: int, delay_s: float, phase_s: float = 0.0) -> ScriptedTurn:
    text = "".join(f"<{turn:02d}{i:05d}>" for i in range(deltas))
    return ScriptedTurn(blocks=[Text(text=text, chunks=deltas)], chunk_delay_s=delay_s, first_event_delay_s=phase_s)


async def _stream_turn(server: Jupyter, session_id: str, reads: dict[str, float]) -> None:
    """`POST chat` on a bare socket, stamping each token the first time it arrives (in its `text-delta`;
    the final `message-end` repeats them all). A bare HTTP/1.1 client costs a few microseconds per chunk
    where httpx costs about a hundred, which would show up as latency on a two-core machine."""
    body = json.dumps({"sessionId": session_id, "message": "go"}).encode()
    head = (
        f"POST /prime/api/chat HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Authorization: token {server.token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(head + body)
    carry = b""
    while data := await reader.read(1 << 16):
        now = time.time()
        window = carry + data
        for match in TOKEN.finditer(window):
            if match.end() > len(carry):
                reads.setdefault(match.group(1).decode(), now)
        carry = window[-16:]
    writer.close()


async def _latencies(
    server: Jupyter, provider: Provider, sessions: int, deltas: int, delay_s: float, turn0: int, lockstep: bool = False
) -> list[float]:
    reads: dict[str, float] = {}
    async with httpx.AsyncClient(headers=server.headers, timeout=None) as client:
        ids = []
        for _ in range(sessions):
            created = await client.post(server.root + "prime/api/chat/new", json={})
            ids.append(created.json()["session"]["sessionId"])
        phase = 0.0 if lockstep else delay_s / sessions  # independent users are not in step
        provider.enqueue(*(_answer(turn0 + i, deltas, delay_s, i * phase) for i in range(sessions)))
        await asyncio.gather(*(_stream_turn(server, sid, reads) for sid in ids))
    with tempfile.TemporaryDirectory() as scratch:
        writes = provider.stamps(Path(scratch))
    missing = sessions * deltas - len(reads.keys() & writes.keys())
    assert missing == 0, f"{missing} deltas were not matched"
    return [(reads[token] - writes[token]) * 1000 for token in reads]


def _agent_dir(root: Path, provider_url: str) -> Path:
    home = root / "agent"
    home.mkdir(parents=True)
    provider = {"baseUrl": provider_url, "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "m1"}]}
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    settings = {"tools": ["read"], "defaultModel": "scripted/m1", "retry": {"enabled": False}}
    (home / "settings.json").write_text(json.dumps(settings))
    return home


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench_latency(deltas: int, delay_ms: float, session_counts: list[int]) -> None:
    print(f"frame latency, provider write -> NDJSON client read ({deltas} deltas per answer, {delay_ms} ms apart)")
    print(f"  {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} before the runs")
    provider = Provider()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        server = Jupyter(scratch, prime=True, agent_dir=_agent_dir(scratch, provider.url))
        try:
            server.wait_ready()
            asyncio.run(_latencies(server, provider, 1, 50, 0.0, turn0=99))  # warm-up: SDK import, lazy routes
            turn = 0
            for sessions in session_counts:
                for lockstep in (False, True) if sessions > 1 else (False,):
                    cpu = server.cpu_s()
                    values = asyncio.run(
                        _latencies(server, provider, sessions, deltas, delay_ms / 1000, turn, lockstep)
                    )
                    per_delta = (server.cpu_s() - cpu) / len(values) * 1e6
                    turn += sessions
                    label = f"{sessions:>2} session(s){', in lockstep' if lockstep else ''}"
                    print(
                        f"  {label}: median {median(values):.2f} ms, p99 {_percentile(values, 0.99):.2f} ms,"
                        f" max {max(values):.2f} ms over {len(values)} frames; server CPU {per_delta:.0f} us/delta"
                    )
        finally:
            server.stop()
            provider.close()


# --- start-up -----------------------------------------------------------------------------------------


def _import_cost() -> tuple[float, float]:
    """Milliseconds and MB (max RSS growth) to import and load the extension in a process that has
    jupyter_server already imported."""
    probe = (
        "import resource, time, json\n"
        "import jupyter_server.serverapp\n"
        "r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; t0 = time.perf_counter()\n"
        "from prime_jupyter import _jupyter_server_extension_points as points\n"
        "points()[0]['app']\n"
        "print(json.dumps([(time.perf_counter() - t0) * 1000,"
        " (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - r0) / 1024]))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    ms, mb = json.loads(out)
    return float(ms), float(mb)


def bench_startup(runs: int) -> None:
    print(f"start-up of `jupyter server`, median of {runs} alternating runs (other extensions disabled)")
    ready: dict[bool, list[float]] = {False: [], True: []}
    rss: dict[bool, list[float]] = {False: [], True: []}
    first_call: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            for prime in (False, True):
                server = Jupyter(Path(tmp), prime)
                try:
                    ready[prime].append(server.wait_ready() * 1000)
                    rss[prime].append(server.rss_mb())
                    if prime:
                        started = time.perf_counter()
                        httpx.get(server.root + "prime/api/info", headers=server.headers).raise_for_status()
                        first_call.append((time.perf_counter() - started) * 1000)
                finally:
                    server.stop()
    for prime in (False, True):
        label = "with the extension   " if prime else "without the extension"
        print(f"  {label}: ready {median(ready[prime]):.0f} ms, RSS {median(rss[prime]):.1f} MB")
    print(
        f"  difference: {median(ready[True]) - median(ready[False]):+.0f} ms (noise: the runs spread over "
        f"{min(ready[False]):.0f}-{max(ready[False]):.0f} ms), {median(rss[True]) - median(rss[False]):+.1f} MB RSS"
    )
    costs = [_import_cost() for _ in range(runs)]
    print(
        f"  the extension's own import and load: {median(c[0] for c in costs):.1f} ms,"
        f" {median(c[1] for c in costs):.1f} MB"
    )
    print(f"  first request (GET prime/api/info, imports the routes): {median(first_call):.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--provider", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--deltas", type=int, default=5000)
    parser.add_argument("--delay-ms", type=float, default=5.0)
    parser.add_argument("--sessions", default="1,20")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--skip-startup", action="store_true")
    parser.add_argument("--quick", action="store_true", help="500 deltas, 3 start-up runs")
    parser.add_argument("--tune-process-memory", action="store_true", help="opt the servers in (see above)")
    args = parser.parse_args()
    if args.tune_process_memory:
        _SERVER_OPTIONS.append("--PrimeApp.tune_process_memory=True")
    if args.provider:
        asyncio.run(_provider())
        return
    if args.quick:
        args.deltas, args.runs = 500, 3
    bench_latency(args.deltas, args.delay_ms, [int(n) for n in args.sessions.split(",")])
    if not args.skip_startup:
        bench_startup(args.runs)


if __name__ == "__main__":
    main()
