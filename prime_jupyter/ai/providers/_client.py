"""The providers' HTTP client: one `httpx.AsyncClient` per event loop, for POSTs whose answer streams.

The providers encode their bodies themselves (`_request`, `_body`) and parse the SSE bytes themselves
(`prime_jupyter._sse`, the package's one decoder), so all they need of HTTP is one POST and its answer
as bytes. The HTTP is httpx's (design.md D15), which the SDKs use too: a hand-written transport here had
one 600 s timeout for connecting, for the answer and for each read, kept connections forever, in a pool
without bound, and followed no redirect.

- Timeouts: a connection within `connect_timeout_s` (`PRIME_CONNECT_TIMEOUT_S`, else 10 s), so a provider
  whose route is silently dropped fails fast and the loop's bounded retries end a run in about a minute;
  then `timeout_s` (600 s) for the answer's head and for each next read of its body, as a model may think
  for minutes before its first byte.
- The pool: at most 100 connections a loop, 20 of them kept idle for at most 30 s; an idle connection the
  server closed is noticed and not reused (httpcore checks it before each request).
- Redirects are followed here, not by httpx, which turns a redirected POST into a GET: a 301, 302, 307 or
  308 repeats the POST with its body (at most 5 times); a 303 (see other, a GET) is refused with what to
  configure. To another origin the credentials are not sent (`authorization`, cookies, and any header
  named for a key, token, secret or auth).
- Proxies and certificates come from the environment as httpx (and so the SDKs) reads them: `HTTPS_PROXY`,
  `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`; `SSL_CERT_FILE` or `SSL_CERT_DIR`, else certifi's bundle.

httpx is imported at the first request, not with this module: `jupyter prime`'s start does not wait for it.

Failures are `ai.errors` exceptions: `ProviderStatusError` (a status of 400 or more: its code, the API's
error type and message, `retry-after`, the request id), `ProviderConnectionError` (no connection, one that
broke off before the answer ended, a timeout), `NotAnEventStream` (JSON where an event stream was asked
for), `ProviderSetupError` (a URL, header, proxy or timeout setting that cannot work: not retried). None
carries a header value or the URL's user or query: the API key never reaches a message.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import weakref
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit, urlunsplit

from prime_jupyter.ai.errors import NotAnEventStream, ProviderConnectionError, ProviderSetupError, ProviderStatusError
from prime_jupyter.ai.providers._body import Body, body_size, writes

if TYPE_CHECKING:
    import httpx

__all__ = ["CONNECT_TIMEOUT_S", "Response", "close_clients", "connect_timeout", "post_stream"]

USER_AGENT = f"prime-jupyter (Python {sys.version_info.major}.{sys.version_info.minor})"
CONNECT_TIMEOUT_S = 10.0
"""Seconds to wait for a connection when neither the caller nor `PRIME_CONNECT_TIMEOUT_S` says."""
MAX_CONNECTIONS, MAX_IDLE, IDLE_EXPIRY_S = 100, 20, 30.0
MAX_REDIRECTS = 5
_FOLLOWED = frozenset({301, 302, 307, 308})
_CREDENTIAL_WORDS = ("auth", "key", "token", "secret", "cookie")

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = weakref.WeakKeyDictionary()


class Response:
    """A response whose head arrived; `aiter_bytes()` gives its body, decoded (gzip, deflate), once."""

    def __init__(self, response: httpx.Response, url: str, timeout_s: float) -> None:
        self.status: int = response.status_code
        self.headers: Mapping[str, str] = response.headers
        """Looked up case-insensitively."""
        self.url = url
        """As a message may show it: no user, password or query."""
        self._response, self._timeout_s = response, timeout_s

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body as it arrives; raises `ProviderConnectionError` if the connection breaks, or stays
        silent for the read timeout, before the body ends."""
        import httpx

        try:
            async for piece in self._response.aiter_bytes():
                yield piece
        except httpx.ReadTimeout:
            message = f"the request to {self.url} timed out (no data for {self._timeout_s:g} s)"
            raise ProviderConnectionError(message, self.url, timed_out=True) from None
        except httpx.RequestError as exc:
            raise ProviderConnectionError(f"the answer from {self.url} broke off: {_why(exc)}", self.url) from None

    async def aread(self) -> bytes:
        return b"".join([piece async for piece in self.aiter_bytes()])


def connect_timeout(seconds: float | None = None) -> float:
    """`seconds`, else `PRIME_CONNECT_TIMEOUT_S`, else `CONNECT_TIMEOUT_S`."""
    if seconds is not None:
        return seconds
    value = os.environ.get("PRIME_CONNECT_TIMEOUT_S", "").strip()
    if not value:
        return CONNECT_TIMEOUT_S
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise ProviderSetupError(f"PRIME_CONNECT_TIMEOUT_S={value!r}: set it to a number of seconds above 0, e.g. 10")
    return seconds


@asynccontextmanager
async def post_stream(
    url: str, headers: Mapping[str, str], body: Body, timeout_s: float = 600.0, connect_timeout_s: float | None = None
) -> AsyncIterator[Response]:
    """POST `body` (JSON) to `url` with `headers` and yield the response once its head arrived.

    An error status raises `ProviderStatusError` (the body read for what it says); a JSON body where an
    event stream was asked for raises `NotAnEventStream`. The connection goes back to the pool when the
    response was read to its end, and is closed otherwise (an abort, an error)."""
    import httpx

    fields = {"user-agent": USER_AGENT, "accept": "application/json", "content-type": "application/json"}
    fields.update((name.lower(), value) for name, value in headers.items())
    _check(fields)
    timeout = httpx.Timeout(timeout_s, connect=connect_timeout(connect_timeout_s))
    shown = _shown(url)
    response = await _follow(_client(), url, fields, body, timeout)
    try:
        wrapped = Response(response, _shown(str(response.url)), timeout_s)
        if response.status_code >= 400:
            raise await _status_error(wrapped)
        if response.headers.get("content-type", "").startswith("application/json"):
            raise NotAnEventStream(_json_instead(shown, await wrapped.aread()))
        yield wrapped
    finally:
        await response.aclose()


async def close_clients() -> None:
    """Close the running loop's client and its kept-alive connections, e.g. when the server stops; the
    next request opens a new one."""
    client = _clients.pop(asyncio.get_running_loop(), None)
    if client is not None:
        await client.aclose()


def _client() -> httpx.AsyncClient:
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None or client.is_closed:
        import httpx

        limits = httpx.Limits(
            max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_IDLE, keepalive_expiry=IDLE_EXPIRY_S
        )
        try:
            client = httpx.AsyncClient(limits=limits, trust_env=True, follow_redirects=False)
        except ImportError as exc:  # a SOCKS proxy without httpx's extra
            raise ProviderSetupError(f"the proxy the environment names cannot be used: {exc}") from None
        _clients[loop] = client
    return client


async def _follow(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], body: Body, timeouts: httpx.Timeout
) -> httpx.Response:
    """The answer to the POST, following up to `MAX_REDIRECTS` redirects with the same body."""
    for _ in range(MAX_REDIRECTS + 1):
        response = await _send(client, url, headers, body, timeouts)
        location = response.headers.get("location")
        if response.status_code not in (*_FOLLOWED, 303) or location is None:
            return response
        await _discard(response)
        target = str(response.url.join(location))
        if response.status_code == 303:
            message = f"{_shown(url)} answered 303 See Other ({_shown(target)}): set the provider's base URL to the API"
            raise ProviderStatusError(303, message)
        if _origin(target) != _origin(url):
            headers = {name: value for name, value in headers.items() if not _credential(name)}
        url = target
    raise ProviderStatusError(response.status_code, f"{_shown(url)}: more than {MAX_REDIRECTS} redirects")


async def _send(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], body: Body, timeouts: httpx.Timeout
) -> httpx.Response:
    import httpx

    scheme = urlsplit(url).scheme.lower()
    if scheme not in ("http", "https"):
        raise ProviderSetupError(f"unsupported URL scheme {scheme!r} in {_shown(url)}: use http:// or https://")
    url, headers = _without_userinfo(url, headers)
    if isinstance(body, bytes):
        content: bytes | _Pieces = body
    else:
        content = _Pieces(writes(body))
        headers = {**headers, "content-length": str(body_size(body))}
    try:
        request = client.build_request("POST", url, headers=headers, content=content, timeout=timeouts)
        return await client.send(request, stream=True)
    except httpx.InvalidURL as exc:
        raise ProviderSetupError(f"the provider's URL {_shown(url)} is not valid: {exc}") from None
    except httpx.RequestError as exc:
        raise _unanswered(exc, _shown(url), timeouts) from None


def _without_userinfo(url: str, headers: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The URL's `user:password@` as basic auth, unless the provider sends its own `authorization` (its
    key wins, as before httpx), and the URL without it: httpx logs every request's URL at INFO."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, headers
    if "authorization" not in headers:
        import base64

        user_password = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}".encode()
        headers = {**headers, "authorization": "Basic " + base64.b64encode(user_password).decode("ascii")}
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2])), headers


class _Pieces:
    """A body in pieces that can be sent more than once (a redirect repeats it); not an async generator,
    which httpx would refuse to send again."""

    def __init__(self, pieces: list[bytes]) -> None:
        self._pieces = pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self._pieces:
            yield piece


async def _discard(response: httpx.Response) -> None:
    with contextlib.suppress(Exception):
        await response.aread()
    await response.aclose()


def _unanswered(exc: BaseException, url: str, timeout: httpx.Timeout) -> ProviderConnectionError:
    """What to tell a user of a request that got no answer's head."""
    import httpx

    if isinstance(exc, httpx.ConnectTimeout):
        message = f"cannot reach {url}: no connection within {timeout.connect:g} s (PRIME_CONNECT_TIMEOUT_S sets it)"
        return ProviderConnectionError(message, url, timed_out=True)
    if isinstance(exc, httpx.PoolTimeout):
        message = f"the request to {url} timed out waiting {timeout.pool:g} s for one of {MAX_CONNECTIONS} connections"
        return ProviderConnectionError(message, url, timed_out=True)
    if isinstance(exc, httpx.TimeoutException):
        message = f"the request to {url} timed out (no answer for {timeout.read:g} s)"
        return ProviderConnectionError(message, url, timed_out=True)
    if isinstance(exc, httpx.ProxyError):
        return ProviderConnectionError(f"cannot reach {url}: the proxy refused the tunnel ({exc})", url)
    if isinstance(exc, httpx.ConnectError):
        return ProviderConnectionError(f"cannot reach {url}: {_why(exc)}", url)
    return ProviderConnectionError(f"{url} closed the connection without answering: {_why(exc)}", url)


async def _status_error(response: Response) -> ProviderStatusError:
    try:
        body = await response.aread()
    except ProviderConnectionError:
        body = b""
    error_type, message = _api_error(body)
    headers = response.headers
    return ProviderStatusError(
        response.status,
        message or _reason(response.status),
        error_type=error_type,
        retry_after=headers.get("retry-after"),
        request_id=headers.get("request-id") or headers.get("x-request-id"),
    )


def _api_error(body: bytes) -> tuple[str | None, str]:
    """The error's type and message from an Anthropic (`{"type": "error", "error": {...}}`) or OpenAI
    (`{"error": {...}}`) error body; else no type, and the body's text."""
    with contextlib.suppress(ValueError):
        data = json.loads(body)
        inner = data.get("error", data) if isinstance(data, dict) else None
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            kind = inner.get("type") or inner.get("code")
            return (str(kind) if kind else None), inner["message"]
        if isinstance(inner, str):
            return None, inner
    return None, body[:500].decode("utf-8", "replace").strip()


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "error"


def _json_instead(url: str, body: bytes) -> str:
    """What to tell a user whose server answered a streaming request with JSON."""
    _, message = _api_error(body)
    detail = message or body[:500].decode("utf-8", "replace").strip()
    return f"{url} answered with JSON instead of streaming its answer (does it support stream=true?): {detail}"


def _check(headers: Mapping[str, str]) -> None:
    """Refuse a header that would split the request, naming it but not its value (a key, perhaps): httpx's
    own error shows the value."""
    for name, value in headers.items():
        if "\r" in value or "\n" in value or "\r" in name or "\n" in name or ":" in name:
            raise ProviderSetupError(f"the header {name.splitlines()[0]!r} holds a line break or its name a colon")


def _credential(name: str) -> bool:
    return any(word in name.lower() for word in _CREDENTIAL_WORDS)


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or (443 if scheme == "https" else 80)


def _shown(url: str) -> str:
    """The URL without user, password or query (either could hold a key)."""
    parts = urlsplit(url)
    host = f"[{parts.hostname}]" if parts.hostname and ":" in parts.hostname else parts.hostname or ""
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _why(exc: BaseException) -> str:
    """'Connection refused' rather than httpx's 'All connection attempts failed': the first system error
    in the chain of causes, in words (a DNS failure's errno is negative and its strerror says it)."""
    ssl = sys.modules.get("ssl")
    seen: BaseException | None = exc
    while seen is not None:
        if ssl is not None and isinstance(seen, ssl.SSLCertVerificationError):
            why = seen.verify_message or seen.reason
            fix = "a proxy's or a private CA's certificate goes in SSL_CERT_FILE"
            return f"its TLS certificate was refused ({why}); {fix}"
        if ssl is not None and isinstance(seen, ssl.SSLError):
            return f"TLS: {seen.reason or seen}"  # its errno is an OpenSSL code, not the system's
        if isinstance(seen, OSError) and seen.errno:
            return os.strerror(seen.errno) if seen.errno > 0 else str(seen.strerror)
        seen = seen.__cause__ or seen.__context__
    return str(exc) or type(exc).__name__


async def drain(chunks: AsyncIterator[bytes], timeout_s: float = 1.0) -> None:
    """Read a response to its end after the last event, so its connection can be reused. A server that
    keeps the body open longer loses the connection instead (closing it is all that is left to do)."""

    async def _read() -> None:
        async for _ in chunks:
            pass

    try:
        await asyncio.wait_for(_read(), timeout_s)
    except (TimeoutError, Exception):
        return
