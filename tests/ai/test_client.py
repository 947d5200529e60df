"""The providers' HTTP client (`providers._client`): what it sends, how it keeps and follows connections,
and each failure as the exception our retry policy and messages read, against the scripted server (and a
few raw sockets for what it cannot do: hang, drop, redirect, proxy)."""

from __future__ import annotations

import asyncio
import gzip
import importlib.util
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import pytest_asyncio
from kit.net import hanging_port

from prime_jupyter.ai.errors import (
    NotAnEventStream,
    ProviderConnectionError,
    ProviderSetupError,
    ProviderStatusError,
    classify_exception,
)
from prime_jupyter.ai.providers._client import close_clients, connect_timeout, post_stream
from prime_jupyter.testing import HttpError, JsonAnswer, ScriptedLLMServer, ScriptedTurn, Text

KEY = "sk-ant-secret-key-0123456789"
HEADERS = {"authorization": f"Bearer {KEY}", "anthropic-version": "2026-10-21"}
BODY = b'{"model":"scripted-model","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}'
EVENT = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 6\r\n\r\ndata: "

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@pytest_asyncio.fixture(autouse=True)
async def kept_connections() -> AsyncIterator[None]:
    yield
    await close_clients()


async def post(url: str, timeout_s: float = 30.0, headers: dict[str, str] = HEADERS) -> bytes:
    async with post_stream(url, headers, BODY, timeout_s) as response:
        return await response.aread()


async def status_error(llm: ScriptedLLMServer, fault: HttpError) -> ProviderStatusError:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="never")], fault=fault))
    with pytest.raises(ProviderStatusError) as caught:
        await post(f"{llm.base_url}/v1/messages")
    assert KEY not in str(caught.value)
    return caught.value


async def read_request(reader: asyncio.StreamReader) -> tuple[str, bytes]:
    """A request's head and its body (by content-length) as a raw server reads them."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    length = next(int(line.split(":")[1]) for line in head.lower().split("\r\n") if line.startswith("content-length"))
    return head, await reader.readexactly(length)


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
    """A body given as pieces (what a long history's provider sends, `_body.Body`) is sent as the bytes
    they make, in order, with their length; a kept connection after."""
    text = "x" * size
    pieces = [b'{"model":"scripted-model","stream":true,"max_tokens":10,"messages":[', b"", b'{"role":"user",']
    pieces += [b'"content":"', text[: size // 2].encode(), text[size // 2 :].encode(), b'"}]}']
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one")]), ScriptedTurn(blocks=[Text(text="two")]))
    for _ in range(2):  # the second on the kept connection: nothing of the first body is left on it
        async with post_stream(f"{llm.base_url}/v1/messages", HEADERS, pieces, 30) as response:
            assert b"message_stop" in await response.aread()
    for request in llm.requests:
        assert request.headers["content-length"] == str(len(b"".join(pieces)))
        assert "transfer-encoding" not in request.headers
        assert request.body == {
            "model": "scripted-model",
            "stream": True,
            "max_tokens": 10,
            "messages": [{"role": "user", "content": text}],
        }
    assert [r.connection for r in llm.requests] == [1, 1]


@pytest.mark.asyncio
async def test_the_connection_is_kept_for_the_next_request_on_the_loop(llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one")]), ScriptedTurn(blocks=[Text(text="two")]))
    await post(f"{llm.base_url}/v1/messages")
    await post(f"{llm.base_url}/v1/messages")
    assert [r.connection for r in llm.requests] == [1, 1]


@pytest.mark.asyncio
async def test_an_answer_ending_after_its_loop_closed_its_connections_closes_its_own(llm: ScriptedLLMServer) -> None:
    """Regression: `jupyter prime -p` disposed of its session (closing the loop's connections) while the
    provider still read the answer's tail; the connection went back to the pool and was left open at exit."""
    llm.enqueue(*(ScriptedTurn(blocks=[Text(text=str(n))]) for n in range(3)))
    async with post_stream(f"{llm.base_url}/v1/messages", HEADERS, BODY, 30) as response:
        await response.aread()
        await close_clients()
    await post(f"{llm.base_url}/v1/messages")  # a new request keeps its connection again
    await post(f"{llm.base_url}/v1/messages")
    assert [r.connection for r in llm.requests] == [1, 2, 2]


@pytest.mark.asyncio
async def test_an_idle_connection_the_server_closed_is_not_reused() -> None:
    """A kept-alive connection that the server closed while it was idle (its keep-alive timeout) is left
    for a new one, instead of failing the next request."""
    closed = asyncio.Event()
    connections: list[int] = []

    async def once_per_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        await read_request(reader)
        writer.write(EVENT)  # no "connection: close": the client keeps the connection
        await writer.drain()
        writer.close()  # and the server closes it, as at its keep-alive timeout
        await writer.wait_closed()
        closed.set()

    async with _serving(once_per_connection) as url:
        assert await post(url) == b"data: "
        await closed.wait()
        assert await post(url) == b"data: "
    assert len(connections) == 2


@pytest.mark.asyncio
async def test_a_connect_that_hangs_fails_at_the_connect_timeout_saying_so() -> None:
    """Regression (issue 25): a provider whose route drops packets kept a request waiting 600 s to
    connect; the connect timeout is its own, short, and the message names it and how to change it."""
    with hanging_port() as port:
        url = f"http://127.0.0.1:{port}/v1/messages"
        with pytest.raises(ProviderConnectionError) as caught:
            async with asyncio.timeout(60):  # far above the connect timeout, far below the read timeout
                async with post_stream(url, HEADERS, BODY, 600, connect_timeout_s=0.5):
                    pass
    assert str(caught.value) == f"cannot reach {url}: no connection within 0.5 s (PRIME_CONNECT_TIMEOUT_S sets it)"
    assert caught.value.timed_out and classify_exception(caught.value).retryable


def test_the_connect_timeout_comes_from_the_caller_the_environment_or_10_s(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRIME_CONNECT_TIMEOUT_S", raising=False)
    assert connect_timeout() == 10.0 and connect_timeout(3) == 3
    monkeypatch.setenv("PRIME_CONNECT_TIMEOUT_S", "2.5")
    assert connect_timeout() == 2.5 and connect_timeout(3) == 3
    monkeypatch.setenv("PRIME_CONNECT_TIMEOUT_S", "soon")
    with pytest.raises(ProviderSetupError, match=r"PRIME_CONNECT_TIMEOUT_S='soon': set it to a number of seconds") as e:
        connect_timeout()
    assert not classify_exception(e.value).retryable  # a setting to fix: retrying cannot help


@pytest.mark.asyncio
async def test_a_socks_proxy_without_its_support_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    if importlib.util.find_spec("socksio") is not None:
        pytest.skip("socksio is installed, so httpx speaks SOCKS")
    monkeypatch.setenv("ALL_PROXY", "socks5://127.0.0.1:1080")
    with pytest.raises(ProviderSetupError, match="the proxy the environment names cannot be used") as caught:
        await post("https://api.anthropic.com/v1/messages")
    assert not classify_exception(caught.value).retryable


@pytest.mark.asyncio
async def test_a_307_is_followed_with_the_body_and_the_key_on_the_same_origin() -> None:
    seen: list[tuple[str, bytes]] = []

    async def moved(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await read_request(reader))
        writer.write(b"HTTP/1.1 307 Temporary Redirect\r\nlocation: /v2/messages?x=1\r\ncontent-length: 0\r\n\r\n")
        seen.append(await read_request(reader))
        writer.write(EVENT)
        await writer.drain()

    async with _serving(moved) as url:
        assert await post(url) == b"data: "
    (first, body), (second, again) = seen
    assert first.startswith("POST /v1/messages HTTP/1.1\r\n") and second.startswith("POST /v2/messages?x=1 HTTP/1.1")
    assert again == body == BODY and f"authorization: Bearer {KEY}\r\n" in second


@pytest.mark.asyncio
async def test_a_redirect_to_another_origin_sends_no_credentials() -> None:
    seen: list[tuple[str, bytes]] = []

    async def target(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await read_request(reader))
        writer.write(EVENT)
        await writer.drain()

    async with _serving(target) as elsewhere:

        async def moved(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await read_request(reader)
            writer.write(
                f"HTTP/1.1 308 Permanent Redirect\r\nlocation: {elsewhere}\r\ncontent-length: 0\r\n\r\n".encode()
            )
            await writer.drain()

        async with _serving(moved) as url:
            headers = {**HEADERS, "x-api-key": KEY, "api-key": KEY, "x-goog-api-key": KEY}
            assert await post(url, headers=headers) == b"data: "
    [(head, body)] = seen
    assert body == BODY and KEY not in head and "anthropic-version: 2026-10-21" in head.lower()


@pytest.mark.asyncio
async def test_a_303_is_refused_with_what_to_configure() -> None:
    async def see_other(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 303 See Other\r\nlocation: /docs?key=1\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()

    async with _serving(see_other) as url:
        with pytest.raises(ProviderStatusError) as caught:
            await post(url)
    assert str(caught.value).endswith(
        f"{url} answered 303 See Other ({url[: -len('/v1/messages')]}/docs): set the provider's base URL to the API"
    )
    assert not classify_exception(caught.value).retryable


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
    llm.enqueue(ScriptedTurn(blocks=[Text(text="two")]))
    await post(f"{llm.base_url}/v1/messages")
    assert [r.connection for r in llm.requests] == [1, 1]


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
async def test_a_urls_password_is_basic_auth_and_never_logged(
    llm: ScriptedLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    """httpx logs each request's URL at INFO; a gateway's `user:password@` in a base URL stays out of it.
    The provider's own `authorization` (its key) wins over the URL's, as it did before httpx."""
    caplog.set_level("INFO")
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one")]), ScriptedTurn(blocks=[Text(text="two")]))
    url = llm.base_url.replace("http://", "http://me:pa%40ss@") + "/v1/messages"
    async with post_stream(url, {"anthropic-version": "2026-10-21"}, BODY, 30) as response:
        await response.aread()
    await post(url)
    assert [r.headers["authorization"] for r in llm.requests] == ["Basic bWU6cGFAc3M=", f"Bearer {KEY}"]
    assert "pa%40ss" not in caplog.text and "bWU6" not in caplog.text and KEY not in caplog.text


@pytest.mark.asyncio
async def test_a_silent_server_times_out() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await reader.read(1)  # until the client gives up

    async with _serving(silent) as url:
        with pytest.raises(ProviderConnectionError, match=r"timed out \(no answer for 0.2 s\)") as caught:
            await post(url, timeout_s=0.2)
    assert caught.value.timed_out


@pytest.mark.asyncio
async def test_an_answer_that_stalls_mid_body_times_out() -> None:
    async def stalling(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        writer.write(b"6\r\ndata: \r\n")
        await writer.drain()
        await reader.read(1)  # until the client gives up

    async with _serving(stalling) as url:
        async with post_stream(url, HEADERS, BODY, 0.3) as response:
            pieces = response.aiter_bytes()
            assert await anext(pieces) == b"data: "
            with pytest.raises(ProviderConnectionError, match=r"timed out \(no data for 0.3 s\)") as caught:
                await anext(pieces)
    assert caught.value.timed_out


@pytest.mark.asyncio
async def test_an_answer_cut_off_mid_body_is_a_connection_error() -> None:
    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        writer.write(b"5\r\nevent\r\n")
        await writer.drain()
        writer.transport.abort()

    async with _serving(cut) as url:
        with pytest.raises(ProviderConnectionError, match="broke off"):
            await post(url)


@pytest.mark.asyncio
async def test_a_gzipped_body_is_decompressed() -> None:
    events = b"event: ping\ndata: {}\n\n" * 50

    async def gzipping(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        packed = gzip.compress(events)
        head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: gzip\r\n"
        writer.write(f"{head}content-length: {len(packed)}\r\n\r\n".encode() + packed)
        await writer.drain()

    async with _serving(gzipping) as url:
        assert await post(url) == events


@pytest.mark.asyncio
async def test_the_http_proxy_of_the_environment_gets_the_absolute_url_and_its_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[str, bytes]] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await read_request(reader))
        writer.write(EVENT)
        await writer.drain()

    async with _serving(proxy) as url:
        monkeypatch.setenv("HTTP_PROXY", url.replace("http://", "http://me:pa%40ss@").removesuffix("/v1/messages"))
        monkeypatch.setenv("NO_PROXY", "localhost")
        assert await post("http://provider.example:8080/v1/messages") == b"data: "
    [(head, body)] = seen
    assert head.startswith("POST http://provider.example:8080/v1/messages HTTP/1.1\r\n") and body == BODY
    assert "host: provider.example:8080\r\n" in head.lower()
    assert "proxy-authorization: basic bwu6cgfac3m=\r\n" in head.lower()  # me:pa@ss


@pytest.mark.asyncio
async def test_an_https_url_is_tunnelled_through_the_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bytes] = []

    async def refusing(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await reader.readuntil(b"\r\n\r\n"))
        writer.write(b"HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()

    async with _serving(refusing) as url:
        monkeypatch.setenv("https_proxy", url.removesuffix("/v1/messages"))
        with pytest.raises(ProviderConnectionError) as caught:
            await post("https://api.anthropic.com/v1/messages")
    assert seen[0].startswith(b"CONNECT api.anthropic.com:443 HTTP/1.1\r\n")
    assert "the proxy refused the tunnel (407 Proxy Authentication Required)" in str(caught.value)
    assert KEY.encode() not in seen[0]


@pytest.mark.asyncio
async def test_a_header_with_a_line_break_is_refused_without_its_value(llm: ScriptedLLMServer) -> None:
    with pytest.raises(ValueError, match="'authorization'") as caught:
        async with post_stream(f"{llm.base_url}/v1/messages", {"authorization": f"{KEY}\r\nx: y"}, BODY, 5):
            pass
    assert KEY not in str(caught.value) and llm.requests == []


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class _serving:
    """A raw server on the test's loop answering with `handler`; its `/v1/messages` URL as the context value."""

    def __init__(self, handler: Handler) -> None:
        self._handler = handler
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._handler, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/v1/messages"

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        await close_clients()
        self._server.close()
