"""`HttpAgentConnection` when the network or the server goes away: replay from the cursor, resync, restart."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from kit.remote import M1, attach, collect, session_events
from kit.server import own_jupyter

from prime_jupyter.connection.http import HttpAgentConnection, ServerEndpoint
from prime_jupyter.connection.types import ConnectionEvent, ConnectionStatus, SessionReplaced
from prime_jupyter.protocol.events import AgentEnd, AgentStart, MessageUpdate
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text
from prime_jupyter.testing.jupyter_process import JupyterProcess, write_agent_dir

ARGS = ("--PrimeApp.ring_size=5", "--PrimeApp.allow_outside_root=True")  # work dirs are outside this root


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    """A server whose event logs keep only 20 events (4 x ring_size), so a client can fall out of them."""
    yield from own_jupyter(tmp_path_factory, "jupyter", *ARGS)


class CuttableProxy:
    """A TCP proxy in front of the server: `cut()` drops every connection and refuses new ones until
    `resume()` (a network that goes away, while the server and its sessions stay up)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.blocked = False
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    def cut(self) -> None:
        self.blocked = True
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    def resume(self) -> None:
        self.blocked = False

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.blocked:
            writer.transport.abort()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self._writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.transport.abort()
            self._writers.discard(writer)


def statuses(seen: list[ConnectionEvent]) -> list[str]:
    return [e.status for e in seen if isinstance(e, ConnectionStatus)]


async def through_proxy(
    jupyter: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> tuple[CuttableProxy, HttpAgentConnection, HttpAgentConnection]:
    """A connection through a proxy, and a direct one to the same session (to drive it while cut off)."""
    proxy = CuttableProxy(jupyter.port)
    port = await proxy.start()
    write_agent_dir(jupyter.agent_dir, llm)
    endpoint = ServerEndpoint(f"http://127.0.0.1:{port}/", jupyter.endpoint.token)
    remote = await HttpAgentConnection.connect(endpoint, cwd=str(tmp_path), model=M1)
    direct = await HttpAgentConnection.connect(jupyter.endpoint, remote.session_id)
    return proxy, remote, direct


@pytest.mark.asyncio
async def test_a_dropped_stream_reconnects_and_replays_what_it_missed(
    jupyter: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    proxy, remote, direct = await through_proxy(jupyter, llm, tmp_path)
    seen = collect(remote)
    try:
        proxy.cut()
        await seen.until(lambda: statuses(seen) == ["reconnecting"])
        llm.enqueue(ScriptedTurn(blocks=[Text(text="missed while away", chunks=3)]))
        await direct.prompt("hello")
        await direct.wait_for_idle()  # the whole run happened while the client was cut off
        proxy.resume()
        await remote.wait_for_idle()
        events = session_events(seen)
        assert statuses(seen) == ["reconnecting", "connected"]
        assert isinstance(events[0], AgentStart) and isinstance(events[-1], AgentEnd)
        text = [e for e in events if isinstance(e, MessageUpdate)][-1].message.text()
        assert text == "missed while away" and not any(isinstance(e, SessionReplaced) for e in seen)
    finally:
        await remote.dispose()
        await direct.dispose()
        await proxy.close()


@pytest.mark.asyncio
async def test_a_client_that_fell_out_of_the_log_gets_a_fresh_snapshot(
    jupyter: JupyterProcess, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    proxy, remote, direct = await through_proxy(jupyter, llm, tmp_path)
    seen = collect(remote)
    answer = " ".join(f"w{i}" for i in range(40))
    try:
        proxy.cut()
        llm.enqueue(ScriptedTurn(blocks=[Text(text=answer, chunks=40)]))
        await direct.prompt("a long one")
        await direct.wait_for_idle()  # about 50 events: more than the server keeps
        proxy.resume()
        await seen.until(lambda: any(isinstance(e, SessionReplaced) for e in seen))
        replaced = next(e for e in seen if isinstance(e, SessionReplaced))
        assert replaced.snapshot.state.session_id == remote.session_id
        assert [m.text() for m in replaced.snapshot.messages] == ["a long one", answer]
        assert not any(isinstance(e, AgentEnd) for e in session_events(seen))  # replaced, not replayed
        llm.enqueue(ScriptedTurn(blocks=[Text(text="and on")]))
        await remote.prompt("go on")
        await remote.wait_for_idle()
        assert isinstance(session_events(seen)[-1], AgentEnd)
    finally:
        await remote.dispose()
        await direct.dispose()
        await proxy.close()


@pytest.mark.asyncio
async def test_after_a_server_restart_the_client_resyncs_and_the_session_goes_on(
    llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    server = await asyncio.to_thread(JupyterProcess(tmp_path / "agent", tmp_path, tmp_path / "runtime").start)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="before")]), ScriptedTurn(blocks=[Text(text="after")]))
    conn = await attach(server, llm, tmp_path)
    seen = collect(conn)
    try:
        await conn.prompt("first")
        await conn.wait_for_idle()
        await asyncio.to_thread(server.stop)  # in a thread: the client's loop must keep running meanwhile
        await seen.until(lambda: "reconnecting" in statuses(seen))
        await asyncio.to_thread(server.start)
        await seen.until(lambda: any(isinstance(e, SessionReplaced) for e in seen))
        assert statuses(seen) == ["reconnecting", "connected"]
        replaced = next(e for e in seen if isinstance(e, SessionReplaced))
        assert [m.text() for m in replaced.snapshot.messages] == ["first", "before"]
        await conn.prompt("second")
        await conn.wait_for_idle()
        assert [m.text() for m in (await conn.get_messages()).messages] == ["first", "before", "second", "after"]
    finally:
        await conn.dispose()
        await asyncio.to_thread(server.stop)
