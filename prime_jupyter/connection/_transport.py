"""`HttpTransport`: requests to a Jupyter server, over TCP or a Unix socket, with its token.

Errors come back as the exception tree of `prime_jupyter.errors` (`_endpoint.refusal`): a route's
`ErrorBody` by its reason (busy → `BusyError`, not-found → `SessionNotFoundError`, unknown-model →
`ModelNotFoundError`, no-api-key → `ConfigError`, anything else → `PrimeError` with the server's
message); a server that cannot be reached, refuses the token, or lacks the route, as a `PrimeError` that says so.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypeVar

import httpx
from pydantic import BaseModel, JsonValue

from prime_jupyter.connection._endpoint import ServerEndpoint, refusal
from prime_jupyter.errors import PrimeError, ServerUnavailableError

__all__ = ["HttpTransport", "ServerEndpoint", "ServerUnavailableError"]

M = TypeVar("M", bound=BaseModel)


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
        where = f"{self.endpoint.display}{response.request.url.path}"
        return refusal(response.status_code, where, response.content)


def describe(error: BaseException) -> str:
    """A short description of a transport failure (httpx errors often have an empty message)."""
    return str(error) or type(error).__name__
