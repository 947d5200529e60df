"""How the NDJSON stream reaches clients that are not the usual fast HTTP/1.1 reader.

Frames of a chunked response are framed and sent on the socket by `server/http/streaming.py` itself,
bypassing Tornado's write path; these tests hold it to what Tornado would have sent: a reader that
stops reading while megabytes pile up, a client that resets its connection, an HTTP/1.0 client (no
chunked encoding), a server that compresses its responses (Tornado gzips `text/event-stream`, not
NDJSON) and one that serves HTTPS.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import struct
import subprocess
from pathlib import Path
from typing import Any

import h11
import httpx
import pytest
from kit.server import MODEL, PrimeClient, ServerProcess, kinds, text_of

from prime_jupyter.protocol.framing import SseDecoder
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

Json = dict[str, Any]


async def _raw_chat(
    prime: PrimeClient, body: Json, *, http10: bool = False, pause_until: asyncio.Event | None = None
) -> tuple[h11.Response, bytes]:
    """`POST chat` on a bare socket with a small receive buffer: the response and its decoded body.

    With `pause_until`, nothing is read after the request until the event is set, so the server's
    socket buffer fills and the rest of the answer has to wait in the server.
    """
    url = prime.root + "chat"
    host_port, _, path = url.removeprefix("http://").partition("/")
    host, port = host_port.split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
    reader, writer = await asyncio.open_connection(sock=sock)
    content = json.dumps(body).encode()
    version = "1.0" if http10 else "1.1"
    headers = "".join(f"{k}: {v}\r\n" for k, v in prime.headers.items())
    head = f"POST /{path} HTTP/{version}\r\nHost: {host_port}\r\n{headers}Content-Length: {len(content)}\r\n"
    writer.write(head.encode() + b"Content-Type: application/json\r\nConnection: close\r\n\r\n" + content)
    await writer.drain()
    if pause_until is not None:
        await asyncio.wait_for(pause_until.wait(), 60)
    client = h11.Connection(h11.CLIENT)
    client.send(h11.Request(method="POST", target="/" + path, headers=[("Host", host_port)]))
    response: h11.Response | None = None
    data = bytearray()
    try:
        while True:
            event = client.next_event()
            if event is h11.NEED_DATA:
                client.receive_data(await asyncio.wait_for(reader.read(65536), 30))
            elif isinstance(event, h11.Response):
                response = event
            elif isinstance(event, h11.Data):
                data += event.data
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                break
    finally:
        writer.close()
    assert response is not None
    return response, bytes(data)


def _header(response: h11.Response, name: bytes) -> bytes | None:
    return next((value for key, value in response.headers if key == name), None)


def _frames(body: bytes) -> list[Json]:
    return [json.loads(line) for line in body.split(b"\n") if line]


async def test_a_reader_that_stops_reading_gets_every_frame_in_order(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session()
    answer = "".join(f"<{n:06d}>" + "x" * 9992 for n in range(600))  # 6 MB: more than any socket buffer holds
    llm.enqueue(ScriptedTurn(blocks=[Text(text=answer, chunks=600)]))
    provider_done = asyncio.Event()

    async def watch() -> None:
        await asyncio.to_thread(llm.wait_finished, 1, 60)
        await asyncio.sleep(0.3)  # the server has read the whole answer and queued what the socket refused
        provider_done.set()

    watcher = asyncio.create_task(watch())
    response, body = await _raw_chat(prime, {"sessionId": session_id, "message": "go"}, pause_until=provider_done)
    await watcher
    assert response.status_code == 200 and _header(response, b"transfer-encoding") == b"chunked"
    frames = _frames(body)
    assert kinds(frames)[0] == "start" and kinds(frames)[-1] == "done"
    assert text_of(frames) == answer  # nothing lost, duplicated or reordered
    assert (await prime.session(session_id))["messages"][-1]["parts"][0]["text"] == answer


async def test_a_client_that_resets_its_connection_leaves_the_run_going(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await prime.new_session()
    answer = "more " * 200
    llm.enqueue(ScriptedTurn(blocks=[Text(text=answer, chunks=200)], chunk_delay_s=0.005))
    url = prime.root + "chat"
    host_port, _, path = url.removeprefix("http://").partition("/")
    host, port = host_port.split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    content = json.dumps({"sessionId": session_id, "message": "go"}).encode()
    headers = "".join(f"{k}: {v}\r\n" for k, v in prime.headers.items())
    head = f"POST /{path} HTTP/1.1\r\nHost: {host_port}\r\n{headers}Content-Length: {len(content)}\r\n\r\n"
    writer.write(head.encode() + content)
    assert b"text-delta" in await reader.readuntil(b"text-delta")
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()  # a reset, not a clean close (FIN): the server may hear of it as a failed send
    await asyncio.to_thread(llm.wait_finished, 1, 30)
    snapshot = await prime.settled(session_id, messages=2)
    assert snapshot["messages"][1]["parts"] == [{"type": "text", "text": answer}]
    llm.enqueue(ScriptedTurn(blocks=[Text(text="and again")]))
    assert text_of(await prime.turn(session_id, "again")) == "and again"


async def test_an_http_1_0_client_gets_plain_ndjson(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one two three four", chunks=4)]))
    response, body = await _raw_chat(prime, {"sessionId": session_id, "message": "go"}, http10=True)
    assert response.status_code == 200 and _header(response, b"transfer-encoding") is None
    frames = _frames(body)  # no chunk sizes mixed into the lines
    assert kinds(frames)[-1] == "done" and text_of(frames) == "one two three four"


class TestCompressedResponses:
    """`compress_response` in the server's Tornado settings: frames go through Tornado's gzip transform."""

    @pytest.fixture
    def jp_server_config(self, agent_dir: Path) -> dict[str, Any]:
        return {
            "ServerApp": {
                "jpserver_extensions": {"prime_jupyter": True},
                "tornado_settings": {"compress_response": True},
            },
            "PrimeApp": {"agent_dir": str(agent_dir), "default_model": MODEL},
        }

    async def test_the_event_stream_is_one_valid_gzip_body(self, prime: PrimeClient, llm: ScriptedLLMServer) -> None:
        session_id = await prime.new_session()
        answer = "compressed " * 50
        llm.enqueue(ScriptedTurn(blocks=[Text(text=answer, chunks=25)], chunk_delay_s=0.01))
        headers = {**prime.headers, "Accept-Encoding": "gzip"}
        params = {"sessionId": session_id}
        frames: list[Json] = []
        async with httpx.AsyncClient(headers=headers, timeout=30) as client:
            async with client.stream("GET", prime.root + "chat/events", params=params) as response:
                assert response.headers["content-encoding"] == "gzip"  # text/event-stream is compressible
                turn = asyncio.create_task(prime.turn(session_id, "go"))
                decoder = SseDecoder()
                async for chunk in response.aiter_bytes():  # httpx inflates as the chunks arrive
                    frames += [json.loads(message.data) for message in decoder.feed(chunk) if message.data]
                    if frames and frames[-1]["type"] == "done":
                        break
        assert text_of(await turn) == answer
        assert text_of(frames) == answer


async def test_a_turn_streams_over_https(llm: ScriptedLLMServer, agent_dir: Path, tmp_path: Path) -> None:
    """A server with a certificate: its `SSLIOStream` encrypts the chunks `streaming.py` frames."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("needs the openssl command to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subject = ["-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)]
    command = [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", *subject]
    await asyncio.to_thread(subprocess.run, command, check=True, capture_output=True)
    root_dir = tmp_path / "root"
    root_dir.mkdir()
    server = await ServerProcess(agent_dir, root_dir, tmp_path / "server", tls=(cert, key)).ready()
    try:
        assert server.client.root.startswith("https://")
        session_id = await server.client.new_session()
        answer = "encrypted " * 300
        llm.enqueue(ScriptedTurn(blocks=[Text(text=answer, chunks=300)]))
        frames = await server.client.turn(session_id, "go")
    finally:
        server.stop()
    assert kinds(frames)[-1] == "done" and text_of(frames) == answer
