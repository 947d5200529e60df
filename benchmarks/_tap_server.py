"""The scripted LLM server behind a timing tap: a subprocess that stamps request and response bytes.

Usage::

    python benchmarks/_tap_server.py --script script.json --out taps.json

prints `READY <base_url>` once listening and serves until its stdin reaches EOF, then writes
`{"taps": [...], "outcomes": [...]}` to `--out` and exits.

Why a tap rather than the server's own records: the server stamps `received_at` after it has parsed
the request body and validated it into a record, which for the 15 MB first request of a resumed
22,000-entry session costs a few hundred milliseconds of *server* time that would be charged to the
agent. The tap is a byte relay in front of the server, so its stamps are wire times:

- `start`: the first byte of a request reaches the tap,
- `end`: the last byte of that request reaches the tap (the request is fully sent),
- `response_end`: the tap has handed the last byte of the response to the client's socket,
- `request_bytes`: the size of the request, head and body,
- `connection`: which agent connection (1, 2, …) carried it.

HTTP/1.1 without pipelining makes boundaries unambiguous: on one connection, client bytes that follow
server bytes start the next request.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from prime_jupyter.testing import RecordedRequest, Script, ScriptedServerCore

_CHUNK = 1 << 20
_BUFFER = 1 << 22
"""Reads of 1 MB and stream buffers of 4 MB: with asyncio's defaults (64 KB reads, a reader pausing at
128 KB) the tap itself paced a 5.7 MB request to 10-23 ms where a bare reader takes 1.5 ms
(`bench_tap.py`), which charged the tap's slowness to both agents' per-turn gap."""


@dataclass
class Tap:
    """Wire times of one request/response exchange, on the wall clock (`time.time()`)."""

    start: float
    end: float
    response_end: float | None = None
    request_bytes: int = 0
    connection: int = 0


@dataclass
class _Connection:
    """Splits one keep-alive connection's traffic into exchanges."""

    taps: list[Tap]
    number: int
    current: Tap | None = None
    answering: bool = field(default=False)

    def client_bytes(self, now: float, size: int) -> None:
        if self.current is None or self.answering:
            self.current = Tap(start=now, end=now, connection=self.number)
            self.taps.append(self.current)
            self.answering = False
        self.current.end = now
        self.current.request_bytes += size

    def server_bytes(self, now: float) -> None:
        self.answering = True
        if self.current is not None:
            self.current.response_end = now


async def _pump_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn: _Connection) -> None:
    while data := await reader.read(_CHUNK):
        conn.client_bytes(time.time(), len(data))
        writer.write(data)
        await writer.drain()
    writer.close()


async def _pump_server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn: _Connection) -> None:
    while data := await reader.read(_CHUNK):
        writer.write(data)
        await writer.drain()  # zero high-water mark: the bytes are in the kernel now
        conn.server_bytes(time.time())
    writer.close()


class _Relay:
    """Accepts agent connections and relays each to its own connection to the scripted server."""

    def __init__(self, upstream_port: int) -> None:
        self.taps: list[Tap] = []
        self.connections = 0
        self._port = upstream_port

    async def handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        client_w.transport.set_write_buffer_limits(0)
        self.connections += 1
        conn = _Connection(self.taps, self.connections)
        try:
            server_r, server_w = await asyncio.open_connection("127.0.0.1", self._port, limit=_BUFFER)
            server_w.transport.set_write_buffer_limits(high=4 * _BUFFER)
            await asyncio.gather(_pump_client(client_r, server_w, conn), _pump_server(server_r, client_w, conn))
        except (ConnectionError, OSError):
            pass  # the agent or the server dropped the connection: the taps so far stand
        finally:
            client_w.close()


async def _wait_for_stdin_eof() -> None:
    done = asyncio.Event()
    loop = asyncio.get_running_loop()

    def read_all() -> None:
        while sys.stdin.buffer.read(_CHUNK):
            pass
        loop.call_soon_threadsafe(done.set)

    threading.Thread(target=read_all, daemon=True).start()
    await done.wait()


async def _serve(script: Script) -> dict[str, object]:
    outcomes: list[str | None] = []

    def on_record(record: RecordedRequest) -> None:
        outcomes.append(record.outcome)

    core = ScriptedServerCore(script.turns, on_record)
    upstream = await core.start("127.0.0.1", 0)
    relay = _Relay(int(upstream.rsplit(":", 1)[1]))
    server = await asyncio.start_server(relay.handle, "127.0.0.1", 0, limit=_BUFFER)
    port = server.sockets[0].getsockname()[1]
    print(f"READY http://127.0.0.1:{port}", flush=True)
    await _wait_for_stdin_eof()
    server.close()
    await core.close()
    taps = sorted(relay.taps, key=lambda tap: tap.start)
    return {"taps": [asdict(t) for t in taps], "outcomes": outcomes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--script", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    result = asyncio.run(_serve(Script.model_validate_json(args.script.read_bytes())))
    args.out.write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
