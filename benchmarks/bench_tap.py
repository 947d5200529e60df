"""How fast the timing tap (`_tap_server.py`) reads a large request, against a bare reader.

    python benchmarks/bench_tap.py [--mb 5.7] [--runs 5]

`bench_agent.py` charges each per-turn gap up to the request's last byte at the tap, so for the
5.7 MB request of a 10,000-entry history the tap's own reading is part of the figure. This sends one
request of that size with a sender that does no work of its own (one blocking `sendall`, C speed)
to the tap (with the scripted server behind it, as the benchmark runs it) and to a bare reader (a
blocking `recv_into` of 1 MB in a process of its own), and prints, for each, the time from the
request's first byte to its last as the reader stamps them, with the sender's `sendall` time.
When the tap takes much longer than the bare reader, the tap, not the agent, paces the transfer.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _cases import tool_task_script
from _child import TapServer

_BARE_READER = r"""
import socket, sys, time
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(1)
print(server.getsockname()[1], flush=True)
conn, _ = server.accept()
buf, got, first, need = bytearray(1 << 20), 0, None, int(sys.argv[1])
while got < need:
    n = conn.recv_into(buf)
    if not n:
        break
    first = first or time.time()
    got += n
last = time.time()
conn.sendall(b"ok")
print(first, last, flush=True)
"""


def _request(megabytes: float) -> bytes:
    message = b'{"role":"user","content":[{"type":"text","text":"' + b"x" * 540 + b'"}]}'
    count = max(1, int(megabytes * 1e6 / (len(message) + 1)))
    body = b'{"model":"fake-model","stream":true,"max_tokens":100,"messages":[' + b",".join([message] * count) + b"]}"
    head = (
        "POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-api-key: x\r\n"
        f"anthropic-version: 2023-06-01\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def _send(port: int, request: bytes) -> float:
    """Send `request` at C speed, wait for the first answer bytes; the `sendall` time in ms."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        started = time.time()
        sock.sendall(request)
        sent = time.time()
        sock.settimeout(10)
        try:
            sock.recv(1 << 16)
        except TimeoutError:
            pass
    return (sent - started) * 1000


def _through_tap(script: Path, scratch: Path, request: bytes) -> tuple[float, float]:
    server = TapServer(script, scratch)
    sendall_ms = _send(int(server.base_url.rsplit(":", 1)[1]), request)
    taps = server.stop()
    return (taps.ends[0] - taps.starts[0]) * 1000, sendall_ms


def _bare(request: bytes) -> tuple[float, float]:
    argv = [sys.executable, "-c", _BARE_READER, str(len(request))]
    reader = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert reader.stdout is not None
    sendall_ms = _send(int(reader.stdout.readline()), request)
    first, last = map(float, reader.stdout.readline().split())
    reader.wait(30)
    return (last - first) * 1000, sendall_ms


def _line(name: str, values: list[tuple[float, float]]) -> str:
    reads = [read for read, _ in values]
    sends = [send for _, send in values]
    return (
        f"{name:<12} first -> last byte {statistics.median(reads):6.2f} ms ({min(reads):.2f}-{max(reads):.2f}),"
        f" sender's sendall {statistics.median(sends):5.2f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=5.7, help="request size in MB (default 5.7)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    request = _request(args.mb)
    with tempfile.TemporaryDirectory(prefix="bench-tap-") as folder:
        scratch = Path(folder)
        script = scratch / "script.json"
        script.write_text(tool_task_script().model_dump_json())
        tap, bare = [], []
        for _ in range(args.runs):  # alternating, so both see the same load
            tap.append(_through_tap(script, scratch, request))
            bare.append(_bare(request))
    print(f"one request of {len(request) / 1e6:.2f} MB, {args.runs} runs each")
    print(_line("tap", tap))
    print(_line("bare reader", bare))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
