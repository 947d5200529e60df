"""How the providers' transport reaches a host: the proxy the environment names, and TLS on the system's
certificates.

Proxies are read from the environment as curl, httpx and urllib read them: `https_proxy`/`HTTPS_PROXY`
for https URLs, `http_proxy`/`HTTP_PROXY` for http ones, `all_proxy`/`ALL_PROXY` for both (the lower-case
name wins when both are set), and `no_proxy`/`NO_PROXY` (comma-separated hosts, domains, `.domain`, `*`)
to go direct. An http proxy (`http://[user:password@]host:port`) forwards http requests and tunnels https
ones (`CONNECT`); an https proxy is reached over TLS first. SOCKS proxies are refused with a message.

TLS verifies against the system's certificate store (OpenSSL's default paths, which `SSL_CERT_FILE` and
`SSL_CERT_DIR` override); on a system without one, against `certifi`'s bundle when it is installed.
"""

from __future__ import annotations

import asyncio
import base64
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import SplitResult, unquote, urlsplit

if TYPE_CHECKING:
    import ssl

__all__ = ["Origin", "Proxy", "open_stream", "proxy_for", "ssl_context"]

_LIMIT = 1 << 20
"""Longest response head line (and stream buffer) accepted."""


@dataclass(frozen=True, slots=True)
class Origin:
    """Scheme, host and port: what a connection is made to, and what a pooled one is kept for."""

    scheme: str
    host: str
    port: int

    @classmethod
    def of(cls, url: SplitResult) -> Origin:
        scheme = url.scheme.lower()
        if scheme not in ("http", "https"):
            raise ValueError(f"unsupported URL scheme {scheme!r}: use http:// or https://")
        if not url.hostname:
            raise ValueError("the URL names no host")
        return cls(scheme, url.hostname, url.port or (443 if scheme == "https" else 80))

    @property
    def authority(self) -> str:
        """`host[:port]` as the Host header has it (the port only when it is not the scheme's)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


@dataclass(frozen=True, slots=True)
class Proxy:
    origin: Origin
    authorization: str | None
    """The `Proxy-Authorization` value, from the proxy URL's user and password."""


def proxy_for(origin: Origin, environ: dict[str, str] | os._Environ[str] = os.environ) -> Proxy | None:
    """The proxy the environment names for `origin`, or None to connect directly."""
    url = _env(environ, f"{origin.scheme}_proxy") or _env(environ, "all_proxy")
    if not url or _bypassed(origin.host, _env(environ, "no_proxy") or ""):
        return None
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    if parts.scheme.lower().startswith("socks"):
        raise ValueError(f"a SOCKS proxy ({parts.scheme}://) is not supported: use an http:// proxy")
    authorization = None
    if parts.username is not None:
        user_password = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        authorization = "Basic " + base64.b64encode(user_password).decode("ascii")
    return Proxy(Origin.of(parts), authorization)


def _env(environ: dict[str, str] | os._Environ[str], name: str) -> str | None:
    return environ.get(name) or environ.get(name.upper())


def _bypassed(host: str, no_proxy: str) -> bool:
    host = host.lower().rstrip(".")
    for entry in no_proxy.replace(" ", ",").split(","):
        entry = entry.strip().lower().rstrip(".")
        if entry.startswith("[") and "]" in entry:
            entry = entry[1 : entry.index("]")]  # "[::1]" or "[::1]:8080"
        elif entry.count(":") == 1:
            entry = entry.split(":")[0]  # "host:port": the port is not told apart here
        if entry == "*" or (entry and (host == entry.lstrip(".") or host.endswith("." + entry.lstrip(".")))):
            return True
    return False


_context: ssl.SSLContext | None = None


def ssl_context() -> ssl.SSLContext:
    """One verifying TLS context for the process (loading the certificates is the costly part)."""
    global _context
    if _context is None:
        import ssl

        context = ssl.create_default_context()
        paths = ssl.get_default_verify_paths()
        if not any(p and os.path.exists(p) for p in (paths.cafile, paths.capath)):
            try:
                import certifi  # a system without a certificate store (some Python builds on macOS)

                context.load_verify_locations(certifi.where())
            except ImportError:
                pass
        context.set_alpn_protocols(["http/1.1"])
        _context = context
    return _context


async def open_stream(
    origin: Origin, proxy: Proxy | None, timeout_s: float
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to `origin` (through `proxy` if one), TLS done for https. Raises `OSError` (refused,
    unknown host, TLS), `TimeoutError`, or `ConnectionError` for a proxy that refuses the tunnel."""
    async with asyncio.timeout(timeout_s):
        if proxy is None:
            return await _open(origin)
        reader, writer = await _open(proxy.origin)
        if origin.scheme == "http":
            return reader, writer  # the request goes to the proxy in absolute form
        try:
            await _tunnel(reader, writer, origin, proxy)
            await writer.start_tls(ssl_context(), server_hostname=origin.host)
        except BaseException:
            writer.close()
            raise
        return reader, writer


async def _open(origin: Origin) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    tls = ssl_context() if origin.scheme == "https" else None
    return await asyncio.open_connection(origin.host, origin.port, ssl=tls, limit=_LIMIT)


async def _tunnel(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, origin: Origin, proxy: Proxy) -> None:
    target = f"[{origin.host}]:{origin.port}" if ":" in origin.host else f"{origin.host}:{origin.port}"
    lines = [f"CONNECT {target} HTTP/1.1", f"Host: {target}"]
    if proxy.authorization:
        lines.append(f"Proxy-Authorization: {proxy.authorization}")
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    head = await reader.readuntil(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or parts[1] != "200":
        raise ConnectionError(f"the proxy {proxy.origin.authority} refused the tunnel: {status_line}")
