"""HTTP/1.1 requests over a socket (TCP, TLS or a Unix socket), standard library only: what
`remote_run` needs of HTTP and nothing more.

Why not httpx or `http.client`: `jupyter prime attach -p` has about 75 ms from launch to the model's
first request, half of it taken by the `jupyter` launcher, and importing httpx with pydantic took about
150 ms of it, `http.client` 15 ms (the `email` package), asyncio 25 ms (measured on the 2-core machine
of `benchmarks/bench_agent.py --cases attach`). One request per connection (`Connection: close`); the
answer's body is read as it arrives, chunked or not.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from typing import IO

from prime_jupyter.connection._endpoint import ServerEndpoint
from prime_jupyter.errors import PrimeError, ServerUnavailableError

__all__ = ["PlainResponse", "plain_request", "proxied", "request_path"]

_CONNECT_TIMEOUT_S = 10.0
_MAX_HEAD_LINE = 65536


class PlainResponse:
    """An answer whose head is read: `status`, `headers` (names lower-cased), the body still to read."""

    def __init__(self, sock: socket.socket, reader: IO[bytes], status: int, headers: dict[str, str]) -> None:
        self.status = status
        self.headers = headers
        self._sock = sock
        self._reader = reader

    def pieces(self) -> Iterator[bytes]:
        """The body as it arrives: one piece per chunk (a server's flush), or per read."""
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            yield from self._chunks()
            return
        length = self.headers.get("content-length")
        if length is not None:
            yield self._exactly(int(length))
            return
        while piece := self._reader.read1(65536):  # type: ignore[attr-defined]  # a BufferedReader
            yield piece

    def read(self) -> bytes:
        return b"".join(self.pieces())

    def close(self) -> None:
        self._reader.close()
        self._sock.close()

    def _chunks(self) -> Iterator[bytes]:
        while True:
            size = int(self._line().split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                while self._line().strip():  # trailers
                    pass
                return
            data = self._exactly(size)
            self._line()
            yield data

    def _exactly(self, size: int) -> bytes:
        data = self._reader.read(size)
        if len(data) < size:
            raise ConnectionError("the server closed the connection in the middle of an answer")
        return data

    def _line(self) -> bytes:
        line = self._reader.readline(_MAX_HEAD_LINE)
        if not line:
            raise ConnectionError("the server closed the connection in the middle of an answer")
        return line


def plain_request(
    endpoint: ServerEndpoint, method: str, path: str, body: bytes | None = None, read_timeout_s: float | None = None
) -> PlainResponse:
    """Send a request to `path` (relative to the server's base URL) and read the answer's head; raises
    `ServerUnavailableError` when the server cannot be reached."""
    scheme, host, port, _ = _split(endpoint.url)
    try:
        sock = _connect(endpoint, scheme, host, port)
    except OSError as exc:
        raise ServerUnavailableError(f"cannot reach the Jupyter server at {endpoint.display}: {_why(exc)}") from exc
    try:
        sock.settimeout(read_timeout_s)
        sock.sendall(
            _head(method, request_path(endpoint, path), host, port, scheme, endpoint.token, body) + (body or b"")
        )
        reader = sock.makefile("rb")
        status, headers = _read_head(reader)
    except (OSError, ValueError) as exc:
        sock.close()
        raise ServerUnavailableError(f"the Jupyter server at {endpoint.display} broke off: {_why(exc)}") from exc
    return PlainResponse(sock, reader, status, headers)


def proxied(endpoint: ServerEndpoint) -> bool:
    """Whether the environment names a proxy for this server (`http_proxy`, `https_proxy`, `all_proxy`,
    any case, unless `no_proxy` names the host, `*` or a domain suffix), as httpx reads them. This client
    speaks no proxy protocol: the caller goes another way then."""
    if endpoint.sock:
        return False
    scheme, host, _, _ = _split(endpoint.url)
    env = {key.lower(): value for key, value in os.environ.items() if key.lower().endswith("_proxy")}
    if not (env.get(f"{scheme}_proxy") or env.get("all_proxy")):
        return False
    skip = [entry.strip().lower() for entry in env.get("no_proxy", "").split(",") if entry.strip()]
    host = host.lower()
    return not any(
        entry == "*" or host == entry.lstrip(".") or host.endswith("." + entry.lstrip(".")) for entry in skip
    )


def request_path(endpoint: ServerEndpoint, path: str) -> str:
    """The path a request to `path` (relative to the base URL) asks for."""
    return _split(endpoint.url)[3] + path


def _connect(endpoint: ServerEndpoint, scheme: str, host: str, port: int) -> socket.socket:
    if endpoint.sock:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(_CONNECT_TIMEOUT_S)
        try:
            sock.connect(endpoint.sock)
        except OSError:
            sock.close()
            raise
        return sock
    address = (_ascii(host), port)
    sock = socket.create_connection(address, timeout=_CONNECT_TIMEOUT_S)  # type: ignore[arg-type]  # bytes is fine
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if scheme == "https":
        import ssl  # only for a server with a certificate

        return ssl.create_default_context().wrap_socket(sock, server_hostname=host)
    return sock


def _ascii(host: str) -> str | bytes:
    """An ASCII host as bytes: `getaddrinfo` encodes a str host with the `idna` codec, whose import
    (`stringprep`, `unicodedata`) was 1 ms of `attach -p`."""
    return host.encode("ascii") if host.isascii() else host


def _split(url: str) -> tuple[str, str, int, str]:
    """`(scheme, host, port, base path ending in "/")` of a base URL."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("http", "https"):
        raise PrimeError(f"not an http(s) URL: {url}")
    authority, _, path = rest.partition("/")
    authority = authority.rpartition("@")[2]
    if authority.startswith("["):  # [::1]:8888
        host, _, tail = authority[1:].partition("]")
        port_text = tail.removeprefix(":")
    else:
        host, _, port_text = authority.partition(":")
    try:
        port = int(port_text) if port_text else (443 if scheme == "https" else 80)
    except ValueError:
        raise PrimeError(f"not a port in {url}: {port_text}") from None
    base = "/" + path if path.endswith("/") or not path else "/" + path + "/"
    return scheme, host or "localhost", port, base


def _head(method: str, target: str, host: str, port: int, scheme: str, token: str | None, body: bytes | None) -> bytes:
    default_port = 443 if scheme == "https" else 80
    host_header = (f"[{host}]" if ":" in host else host) + ("" if port == default_port else f":{port}")
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host_header}", "Connection: close", "Accept-Encoding: identity"]
    if token:
        lines.append(f"Authorization: token {token}")
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _read_head(reader: IO[bytes]) -> tuple[int, dict[str, str]]:
    status_line = reader.readline(_MAX_HEAD_LINE).decode("latin-1")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/"):
        raise ValueError(f"not an HTTP answer: {status_line.strip()[:80]!r}")
    status = int(parts[1])
    headers: dict[str, str] = {}
    while (line := reader.readline(_MAX_HEAD_LINE).decode("latin-1").strip()) != "":
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if status == 100:  # never asked for, but harmless to skip
        return _read_head(reader)
    return status, headers


def _why(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__
