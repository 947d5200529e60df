"""`HttpTransport`: requests to a Jupyter server, over TCP or a Unix socket, with its token.

Errors come back as the exception tree of `prime_jupyter.errors`: a route's `ErrorBody` by its
reason (busy → `BusyError`, not-found → `SessionNotFoundError`, unknown-model → `ModelNotFoundError`,
no-api-key → `ConfigError`, anything else → `PrimeError` with the server's message); a server that
cannot be reached, refuses the token, or lacks the route, as a `PrimeError` that says so.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TypeVar

import httpx
from pydantic import BaseModel, JsonValue, ValidationError

from prime_jupyter.errors import (
    BusyError,
    ConfigError,
    ModelNotFoundError,
    PrimeError,
    ServerUnavailableError,
    SessionNotFoundError,
)
from prime_jupyter.protocol.requests import ErrorBody

__all__ = ["HttpTransport", "ServerEndpoint", "ServerUnavailableError"]

M = TypeVar("M", bound=BaseModel)

_BY_REASON: dict[str, type[PrimeError]] = {
    "busy": BusyError,
    "not-found": SessionNotFoundError,
    "unknown-model": ModelNotFoundError,
    "no-api-key": ConfigError,
}


@dataclass(frozen=True, slots=True)
class ServerEndpoint:
    """Where a Jupyter server listens: `url` is its base URL (`http://127.0.0.1:8888/` or with a base
    path); with `sock` (a Unix socket) only the path of `url` counts. `token` is sent as
    `Authorization: token <token>`."""

    url: str
    token: str | None = None
    sock: str | None = None

    @classmethod
    def unix(cls, sock: str, token: str | None = None, base_url: str = "/") -> ServerEndpoint:
        return cls(url="http://localhost" + base_url, token=token, sock=sock)

    @property
    def display(self) -> str:
        return f"{self.sock} ({self.url})" if self.sock else self.url


class HttpTransport:
    def __init__(self, endpoint: ServerEndpoint, stream_idle_timeout_s: float = 90.0) -> None:
        self.endpoint = endpoint
        self._stream_timeout = httpx.Timeout(10.0, read=stream_idle_timeout_s)
        headers = {"Authorization": f"token {endpoint.token}"} if endpoint.token else {}
        self._client = httpx.AsyncClient(
            base_url=endpoint.url if endpoint.url.endswith("/") else endpoint.url + "/",
            headers=headers,
            transport=httpx.AsyncHTTPTransport(uds=endpoint.sock) if endpoint.sock else None,
            timeout=httpx.Timeout(10.0, read=None),  # a command may take as long as a compaction
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def get(self, path: str, result: type[M], params: dict[str, str] | None = None) -> M:
        response = await self._send("GET", path, params=params)
        return result.model_validate_json(response.content)

    async def post(self, path: str, body: dict[str, JsonValue], result: type[M]) -> tuple[M, int | None]:
        """The result, and the event cursor the server sent along (`X-Prime-Cursor`), if any."""
        response = await self._send("POST", path, json=body)
        cursor = response.headers.get("X-Prime-Cursor")
        return result.model_validate_json(response.content), int(cursor) if cursor else None

    @asynccontextmanager
    async def stream(self, path: str, params: dict[str, str]) -> AsyncIterator[httpx.Response]:
        """An open streaming GET (status checked). Reading it raises `httpx.TransportError` when the
        connection drops."""
        request = self._client.build_request("GET", path, params=params, timeout=self._stream_timeout)
        try:
            response = await self._client.send(request, stream=True)
        except httpx.TransportError as exc:
            raise self._unavailable(exc) from exc
        try:
            if response.status_code != 200:
                await response.aread()
                raise self.error(response)
            yield response
        finally:
            await response.aclose()

    async def _send(self, method: str, path: str, **kwargs: object) -> httpx.Response:
        try:
            response = await self._client.request(method, path, **kwargs)  # type: ignore[arg-type]
        except httpx.TransportError as exc:
            raise self._unavailable(exc) from exc
        if response.status_code >= 400:
            raise self.error(response)
        return response

    def _unavailable(self, error: httpx.TransportError) -> ServerUnavailableError:
        return ServerUnavailableError(f"cannot reach the Jupyter server at {self.endpoint.display}: {describe(error)}")

    def error(self, response: httpx.Response) -> PrimeError:
        """The exception a refused request stands for."""
        status, where = response.status_code, f"{self.endpoint.display}{response.request.url.path}"
        body = _error_body(response.content)
        if status in (401, 403):
            return PrimeError(f"the Jupyter server refused the request ({status} at {where}): check the token")
        if status in (502, 503, 504):  # a proxy in front of a server that is restarting
            return ServerUnavailableError(f"the Jupyter server is not available ({status} at {where})")
        if body is None and status == 404:
            return PrimeError(f"no such route: {where} (is prime-jupyter installed and enabled on that server?)")
        if body is None:
            return PrimeError(f"the Jupyter server answered {status} at {where}")
        return _BY_REASON.get(body.reason, PrimeError)(body.message)


def _error_body(content: bytes) -> ErrorBody | None:
    """The route's `ErrorBody`, or None when the answer is not one (Jupyter's own 404 page, a proxy)."""
    try:
        data = json.loads(content)
        return ErrorBody.model_validate(data) if isinstance(data, dict) and "reason" in data else None
    except (ValueError, ValidationError):
        return None


def describe(error: BaseException) -> str:
    """A short description of a transport failure (httpx errors often have an empty message)."""
    return str(error) or type(error).__name__
