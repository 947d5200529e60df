"""The providers' transport (`providers._http`): what it sends, and each failure as the exception our retry
policy and messages read, against the scripted server (and a few raw sockets for what it cannot do)."""

from __future__ import annotations

import asyncio
import gzip
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import pytest_asyncio

from prime_jupyter.ai.errors import (
    NotAnEventStream,
    ProviderConnectionError,
    ProviderStatusError,
    classify_exception,
)
from prime_jupyter.ai.providers import _http
from prime_jupyter.ai.providers._chunked import ChunkedDecoder
from prime_jupyter.ai.providers._http import close_clients, post_stream
from prime_jupyter.testing import HttpError, JsonAnswer, ScriptedLLMServer, ScriptedTurn, Text

KEY = "sk-ant-secret-key-0123456789"
HEADERS = {"authorization": f"Bearer {KEY}", "anthropic-version": "2026-10-21"}
BODY = b'{"model":"scripted-model","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}'

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@pytest_asyncio.fixture(autouse=True)
async def kept_connections() -> AsyncIterator[None]:
    yield
    await close_clients()


async def post(url: str, timeout_s: float = 30.0) -> bytes:
    async with post_stream(url, HEADERS, BODY, timeout_s) as response:
        return await response.aread()


async def status_error(llm: ScriptedLLMServer, fault: HttpError) -> ProviderStatusError:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="never")], fault=fault))
    with pytest.raises(ProviderStatusError) as caught:
        await post(f"{llm.base_url}/v1/messages")
    assert KEY not in str(caught.value)
    return caught.value


@pytest.mark.asyncio
async def test_a_post_carries_the_body_and_headers_and_streams_the_events(llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="hello", chunks=2)]))
    body = await post(f"{llm.base_url}/v1/messages")
    assert body.count(b"event: content_block_delta") == 2 and body.rstrip().endswith(b'{"type":"message_stop"}')
    request = llm.requests[0]
    assert request.headers["authorization"] == f"Bearer {KEY}" and request.headers["anthropic-version"] == "2026-10-21"
    assert request.headers["content-type"] == "application/json" and "prime-jupyter" in request.headers["user-agent"]
    assert request.body == {
        "model": "scripted-model",
        "stream": True,
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}],
    }


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [100, 3_000_000], ids=["small", "large"])
async def test_a_body_in_pieces_arrives_whole_with_its_length(llm: ScriptedLLMServer, size: int) -> None:
    """A body given as pieces (what a long history's provider sends, `_http.Body`) is sent as the bytes
    they make, in order: a small one in one write, a large one piece by piece, a kept connection after."""
    text = "x" * size
    pieces = [b'{"model":"scripted-model","stream":true,"max_tokens":10,"messages":[', b"", b'{"role":"user",']
    pieces += [b'"content":"', text[: size // 2].encode(), text[size // 2 :].encode(), b'"}]}']
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one")]), ScriptedTurn(blocks=[Text(text="two")]))
    for _ in range(2):  # the second on the kept connection: nothing of the first body is left on it
        async with post_stream(f"{llm.base_url}/v1/messages", HEADERS, pieces, 30) as response:
            assert b"message_stop" in await response.aread()
    for request in llm.requests:
        assert request.headers["content-length"] == str(len(b"".join(pieces)))
        assert request.body == {
            "model": "scripted-model",
            "stream": True,
            "max_tokens": 10,
            "messages": [{"role": "user", "content": text}],
        }
    assert len(_idle()) == 1


@pytest.mark.asyncio
async def test_the_connection_is_kept_for_the_next_request_on_the_loop(llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one")]), ScriptedTurn(blocks=[Text(text="two")]))
    await post(f"{llm.base_url}/v1/messages")
    kept = _idle()
    await post(f"{llm.base_url}/v1/messages")
    assert len(kept) == 1 and _idle() == kept


@pytest.mark.asyncio
async def test_an_answer_ending_after_its_loop_closed_its_connections_closes_its_own(llm: ScriptedLLMServer) -> None:
    """Regression: `jupyter prime -p` disposed of its session (closing the loop's connections) while the
    provider still read the answer's tail; the connection went back to the pool and was left open at exit."""
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one")]), ScriptedTurn(blocks=[Text(text="two")]))
    async with post_stream(f"{llm.base_url}/v1/messages", HEADERS, BODY, 30) as response:
        await response.aread()
        await close_clients()
    assert _idle() == []
    await post(f"{llm.base_url}/v1/messages")  # a new request keeps its connection again
    assert len(_idle()) == 1


@pytest.mark.asyncio
async def test_a_kept_connection_the_server_dropped_is_replaced_once() -> None:
    answered: list[int] = []

    async def once_per_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        await reader.read(len(BODY))
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 6\r\n\r\ndata: ")
        await writer.drain()
        answered.append(1)
        await reader.readuntil(b"\r\n\r\n")  # the next request: dropped unanswered, as at an idle timeout
        writer.transport.abort()

    async with _serving(once_per_connection) as url:
        assert await post(url) == b"data: "
        assert await post(url) == b"data: "
    assert len(answered) == 2


@pytest.mark.asyncio
async def test_a_refused_key_carries_status_type_message_and_request_id(llm: ScriptedLLMServer) -> None:
    error = await status_error(llm, HttpError(status=401, message="invalid x-api-key"))
    assert (error.status_code, error.error_type, error.message) == (401, "authentication_error", "invalid x-api-key")
    assert error.request_id == "req_scripted_0001"
    assert classify_exception(error).message == "401 invalid x-api-key"


@pytest.mark.asyncio
async def test_an_unknown_model_is_a_404_naming_it(llm: ScriptedLLMServer) -> None:
    error = await status_error(llm, HttpError(status=404, message="model: claude-sonet-4-5"))
    failure = classify_exception(error)
    assert (failure.status, failure.message, failure.retryable) == (404, "404 model: claude-sonet-4-5", False)


@pytest.mark.asyncio
async def test_a_rate_limit_says_when_to_retry(llm: ScriptedLLMServer) -> None:
    error = await status_error(llm, HttpError(status=429, retry_after=7))
    assert (error.error_type, error.retry_after) == ("rate_limit_error", "7")
    failure = classify_exception(error)
    assert failure.retryable and failure.retry_after_s == 7.0


@pytest.mark.asyncio
async def test_an_overloaded_provider_is_worth_retrying(llm: ScriptedLLMServer) -> None:
    error = await status_error(llm, HttpError(status=529))
    assert (error.status_code, error.error_type, error.message) == (529, "overloaded_error", "Overloaded")
    assert classify_exception(error).retryable


@pytest.mark.asyncio
async def test_the_connection_of_an_error_answer_is_kept(llm: ScriptedLLMServer) -> None:
    await status_error(llm, HttpError(status=500))
    assert len(_idle()) == 1


@pytest.mark.asyncio
async def test_json_instead_of_an_event_stream_says_what_the_server_said(llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(fault=JsonAnswer()))
    with pytest.raises(NotAnEventStream, match=r"answered with JSON instead of streaming.*") as caught:
        await post(f"{llm.base_url}/v1/messages")
    assert str(caught.value).startswith(f"{llm.base_url}/v1/messages ")
    assert str(caught.value).endswith(": streaming is not supported")


@pytest.mark.asyncio
async def test_a_refused_connection_names_the_url_without_its_secrets() -> None:
    port = _free_port()
    with pytest.raises(ProviderConnectionError) as caught:
        await post(f"http://user:secret@127.0.0.1:{port}/v1/messages?key=secret")
    assert str(caught.value) == f"cannot reach http://127.0.0.1:{port}/v1/messages: Connection refused"
    assert classify_exception(caught.value).retryable


@pytest.mark.asyncio
async def test_a_silent_server_times_out() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1 << 16)
        await asyncio.sleep(30)

    async with _serving(silent) as url:
        with pytest.raises(ProviderConnectionError, match=r"timed out \(no answer for 0.2 s\)") as caught:
            await post(url, timeout_s=0.2)
    assert caught.value.timed_out


@pytest.mark.asyncio
async def test_an_answer_that_stalls_mid_body_times_out() -> None:
    async def stalling(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1 << 16)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        writer.write(b"6\r\ndata: \r\n")
        await writer.drain()
        await asyncio.sleep(30)

    async with _serving(stalling) as url:
        async with post_stream(url, HEADERS, BODY, 0.3) as response:
            pieces = response.aiter_raw()
            assert await anext(pieces) == b"data: "
            with pytest.raises(ProviderConnectionError, match=r"timed out \(no data for 0.3 s\)") as caught:
                await anext(pieces)
    assert caught.value.timed_out


@pytest.mark.asyncio
async def test_an_answer_cut_off_mid_body_is_a_connection_error() -> None:
    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1 << 16)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        writer.write(b"5\r\nevent\r\n")
        await writer.drain()
        writer.transport.abort()

    async with _serving(cut) as url:
        with pytest.raises(ProviderConnectionError, match="broke off"):
            await post(url)
        assert _idle() == []


@pytest.mark.asyncio
async def test_a_gzipped_body_is_decompressed() -> None:
    events = b"event: ping\ndata: {}\n\n" * 50

    async def gzipping(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1 << 16)
        packed = gzip.compress(events)
        head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: gzip\r\n"
        writer.write(f"{head}content-length: {len(packed)}\r\n\r\n".encode() + packed)
        await writer.drain()

    async with _serving(gzipping) as url:
        assert await post(url) == events


@pytest.mark.asyncio
async def test_an_http_proxy_gets_the_absolute_url_and_its_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bytes] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await reader.readuntil(b"\r\n\r\n"))
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 6\r\n\r\ndata: ")
        await writer.drain()

    async with _serving(proxy) as url:
        monkeypatch.setenv("HTTP_PROXY", url.replace("http://", "http://me:pa%40ss@"))
        monkeypatch.setenv("NO_PROXY", "localhost")
        assert await post("http://provider.example:8080/v1/messages") == b"data: "
    head = seen[0].decode()
    assert head.startswith("POST http://provider.example:8080/v1/messages HTTP/1.1\r\n")
    assert "host: provider.example:8080\r\n" in head
    assert "proxy-authorization: Basic bWU6cGFAc3M=\r\n" in head  # me:pa@ss


@pytest.mark.asyncio
async def test_an_https_url_is_tunnelled_through_the_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bytes] = []

    async def refusing(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await reader.readuntil(b"\r\n\r\n"))
        writer.write(b"HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()

    async with _serving(refusing) as url:
        monkeypatch.setenv("https_proxy", url)
        with pytest.raises(ProviderConnectionError) as caught:
            await post("https://api.anthropic.com/v1/messages")
    assert seen[0].startswith(b"CONNECT api.anthropic.com:443 HTTP/1.1\r\n")
    assert "refused the tunnel: HTTP/1.1 407" in str(caught.value) and KEY.encode() not in seen[0]


@pytest.mark.asyncio
async def test_a_header_with_a_line_break_is_refused_without_its_value(llm: ScriptedLLMServer) -> None:
    with pytest.raises(ValueError, match="'authorization'") as caught:
        async with post_stream(f"{llm.base_url}/v1/messages", {"authorization": f"{KEY}\r\nx: y"}, BODY, 5):
            pass
    assert KEY not in str(caught.value) and llm.requests == []


def test_a_chunked_body_decodes_the_same_in_pieces_of_any_size() -> None:
    wire = b"5;ext=1\r\nhello\r\n1\r\n \r\nb\r\nworld\nagain\r\n0\r\nx-trailer: 1\r\n\r\n"
    for size in (1, 2, 3, 7, len(wire)):
        decoder = ChunkedDecoder()
        out = b"".join(decoder.feed(wire[i : i + size]) for i in range(0, len(wire), size))
        assert (out, decoder.done, decoder.extra) == (b"hello world\nagain", True, b"")


def _idle() -> list[object]:
    return [c for kept in _http._pools.get(asyncio.get_running_loop(), {}).values() for c in kept]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class _serving:
    """A raw server on the test's loop answering with `handler`; its URL as the context value."""

    def __init__(self, handler: Handler) -> None:
        self._handler = handler
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._handler, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/v1/messages"

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await close_clients()
