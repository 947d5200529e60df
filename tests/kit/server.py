"""A small client of the extension's routes for the server tests: JSON calls through `jp_fetch`, the
NDJSON and SSE streams through httpx on a real socket (decoded with the protocol's own decoders)."""

from __future__ import annotations

import asyncio
import json
import secrets
import signal
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from prime_jupyter.protocol.framing import NdjsonDecoder, SseDecoder, SseMessage
from prime_jupyter.testing.jupyter_process import JupyterProcess

Json = dict[str, Any]

MODEL = "scripted/m1"


def own_jupyter(factory: pytest.TempPathFactory, name: str, *args: str) -> Iterator[JupyterProcess]:
    """A `jupyter server` of one test module's own (for a module-scoped fixture: `yield from`), started with
    `args`: its root a fresh folder holding `agent/` (its agent dir) and `work/`. Tests whose sessions run the
    ipython tool need one, so that its kernels end with the module."""
    base = factory.mktemp(name)
    (base / "agent").mkdir()
    (base / "work").mkdir()
    with JupyterProcess(base / "agent", base, base / "runtime", args=args) as server:
        yield server


def write_agent_dir(home: Path, base_url: str, **settings: object) -> Path:
    """An agent dir whose only provider is the scripted server, with the bash, read and ask tools, whose
    sessions run tools without asking (`permissionMode: auto`; a `settings` value of None drops a key)."""
    home.mkdir(parents=True, exist_ok=True)
    provider = {
        "baseUrl": base_url,
        "api": "anthropic-messages",
        "apiKey": "k",
        "models": [{"id": "m1", "contextWindow": 100_000, "maxTokens": 4096}],
    }
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    defaults: dict[str, object] = {"tools": ["bash", "read"], "retry": {"baseDelayMs": 10}, "permissionMode": "auto"}
    merged = {key: value for key, value in {**defaults, **settings}.items() if value is not None}
    (home / "settings.json").write_text(json.dumps(merged))
    return home


class PrimeClient:
    """Calls the routes under `root` (`http://127.0.0.1:PORT/<base_url>prime/api/`) with `headers`."""

    def __init__(self, root: str, headers: dict[str, str], *, verify: bool = True) -> None:
        self.root = root
        self.headers = headers
        self.verify = verify
        """False for a server with a self-signed certificate."""

    async def call(self, method: str, path: str, body: object = None, **params: str) -> Json:
        """A JSON call that must succeed."""
        content = json.dumps(body).encode() if body is not None else None
        code, reply = await self.status(method, path, content, params=params)
        assert code == 200, (code, reply)
        return reply

    async def get(self, path: str, **params: str) -> Json:
        return await self.call("GET", path, **params)

    async def post(self, path: str, body: object) -> Json:
        return await self.call("POST", path, body)

    async def status(
        self, method: str, path: str, body: bytes | None = None, *, headers: dict[str, str] | None = None, **kwargs: Any
    ) -> tuple[int, Json]:
        """Status and JSON body of a request that may fail (raw body bytes, any headers)."""
        all_headers = {**self.headers, **(headers or {})}
        async with httpx.AsyncClient(headers=all_headers, timeout=30, verify=self.verify) as client:
            response = await client.request(method, self.root + path, content=body, **kwargs)
        try:
            data = response.json() if response.content else {}
        except ValueError:
            data = {"raw": response.text}
        return response.status_code, data

    async def new_session(self, **body: object) -> str:
        return str((await self.post("chat/new", body))["session"]["sessionId"])

    async def session(self, session_id: str) -> Json:
        return await self.get("chat/session", sessionId=session_id)

    async def settled(self, session_id: str, messages: int, wait_s: float = 10) -> Json:
        """`chat/session` once the session is no longer running and holds `messages` messages."""
        deadline = time.monotonic() + wait_s
        while True:
            snapshot = await self.session(session_id)
            done = snapshot["session"]["status"] != "running" and len(snapshot["messages"]) == messages
            if done or time.monotonic() > deadline:
                return snapshot
            await asyncio.sleep(0.05)

    @asynccontextmanager
    async def chat(self, body: Json) -> AsyncIterator[AsyncIterator[Json]]:
        """The NDJSON frames of `POST chat`, as they arrive."""
        async with httpx.AsyncClient(headers=self.headers, timeout=30, verify=self.verify) as client:
            async with client.stream("POST", self.root + "chat", json=body) as response:
                assert response.status_code == 200, await response.aread()
                assert response.headers["content-type"].startswith("application/x-ndjson")
                yield _ndjson(response)

    async def turn(self, session_id: str, message: str, **extra: object) -> list[Json]:
        """Every frame of one `POST chat`."""
        async with self.chat({"sessionId": session_id, "message": message, **extra}) as frames:
            return [frame async for frame in frames]

    @asynccontextmanager
    async def events(self, session_id: str, cursor: int | None = None, header: bool = True) -> AsyncIterator[Sse]:
        """An SSE connection to `chat/events`, resuming after `cursor` (as `Last-Event-ID` or the query)."""
        headers = dict(self.headers)
        params = {"sessionId": session_id}
        if cursor is not None and header:
            headers["Last-Event-ID"] = str(cursor)
        elif cursor is not None:
            params["lastEventId"] = str(cursor)
        async with httpx.AsyncClient(headers=headers, timeout=30, verify=self.verify) as client:
            async with client.stream("GET", self.root + "chat/events", params=params) as response:
                assert response.status_code == 200, await response.aread()
                assert response.headers["content-type"].startswith("text/event-stream")
                yield Sse(response)


async def _ndjson(response: httpx.Response) -> AsyncIterator[Json]:
    decoder = NdjsonDecoder()
    async for chunk in response.aiter_bytes():
        for line in decoder.feed(chunk):
            yield json.loads(line)
    for line in decoder.close():
        yield json.loads(line)


class Sse:
    """Messages of an SSE response, with the raw comments counted (heartbeats)."""

    def __init__(self, response: httpx.Response) -> None:
        self._chunks = response.aiter_bytes()
        self._decoder = SseDecoder()
        self._ready: list[SseMessage] = []
        self.raw = b""

    async def next(self, wait_s: float = 10) -> SseMessage:
        while not self._ready:
            chunk = await asyncio.wait_for(anext(self._chunks), wait_s)
            self.raw += chunk
            self._ready.extend(self._decoder.feed(chunk))
        return self._ready.pop(0)

    async def raw_until(self, needle: bytes, wait_s: float = 10) -> None:
        """Read until the raw stream contains `needle` (comments such as heartbeats included)."""
        while needle not in self.raw:
            chunk = await asyncio.wait_for(anext(self._chunks), wait_s)
            self.raw += chunk
            self._ready.extend(self._decoder.feed(chunk))

    async def frame(self, wait_s: float = 10) -> tuple[int | None, Json]:
        message = await self.next(wait_s)
        return (int(message.id) if message.id is not None else None), json.loads(message.data)

    async def until(self, predicate: Callable[[Json], bool], wait_s: float = 10) -> list[tuple[int | None, Json]]:
        """Frames up to and including the first that matches."""
        seen = []
        while True:
            seq, frame = await self.frame(wait_s)
            seen.append((seq, frame))
            if predicate(frame):
                return seen


def kinds(frames: list[Json]) -> list[str]:
    return [str(frame["type"]) for frame in frames]


def text_of(frames: list[Json]) -> str:
    return "".join(str(f["delta"]) for f in frames if f["type"] == "text-delta")


def tool_parts(frames: list[Json]) -> list[Json]:
    """Each tool call's part as the last frame about it left it, in the order the calls began."""
    parts: dict[str, Json] = {}
    for frame in frames:
        if frame["type"] == "tool":
            parts[frame["part"]["toolCallId"]] = frame["part"]
    return list(parts.values())


def part_text(part: Json) -> str:
    """What a tool part says: its error, or the text of its output."""
    if part["state"] == "output-error":
        return str(part.get("errorText"))
    return "\n".join(block.get("text", "") for block in part["output"]["content"])


class ServerProcess:
    """`jupyter server` with the extension in a child process (a `JupyterProcess`), with a `PrimeClient`
    on it, so a test can stop or kill it (a restart) between requests."""

    def __init__(self, agent_dir: Path, root_dir: Path, home: Path, *, tls: tuple[Path, Path] | None = None) -> None:
        """`tls`: serve HTTPS with this certificate and key file."""
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        args = (f"--PrimeApp.agent_dir={agent_dir}", f"--PrimeApp.default_model={MODEL}")
        token = secrets.token_hex(8)
        self.server = JupyterProcess(
            agent_dir, root_dir, home / "runtime", args=args, token=token, tls=tls, only_ours=True
        )
        self.port = self.server.port
        root = self.server.endpoint.url + "prime/api/"
        self.client = PrimeClient(root, {"Authorization": f"token {self.server.token}"}, verify=tls is None)

    async def ready(self) -> ServerProcess:
        await asyncio.to_thread(self.server.start)
        return self

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> None:
        """Stop the server (SIGTERM: a clean shutdown; SIGKILL: a crash) and reap it."""
        self.server.stop(sig)
