"""A second collaborative client for the notebook tests: a jupyter_ydoc `YNotebook` synced with the
server's room over its websocket by pycrdt's own `Provider`, as Lab's document provider is (a session
`PUT /api/collaboration/session/<path>`, then `/api/collaboration/room/json:notebook:<fileId>`).

jupyter-collaboration's own fixtures do the same over httpx-ws; this one uses tornado's websocket client,
which the server already needs, so the test extra adds nothing for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import quote

import httpx
from jupyter_ydoc import YNotebook
from pycrdt import Channel, Provider
from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from prime_jupyter.notebooks.collab import read_document

__all__ = ["TornadoChannel", "collaborator", "converged"]


class TornadoChannel(Channel):
    """pycrdt's `Channel` over a tornado websocket client connection."""

    def __init__(self, connection: WebSocketClientConnection, path: str) -> None:
        self._connection = connection
        self._path = path

    @property
    def path(self) -> str:
        return self._path

    async def __anext__(self) -> bytes:
        message = await self._connection.read_message()
        if message is None:
            raise StopAsyncIteration
        return message if isinstance(message, bytes) else message.encode()

    async def send(self, message: bytes) -> None:
        await self._connection.write_message(message, binary=True)

    async def recv(self) -> bytes:
        return await self.__anext__()


@asynccontextmanager
async def collaborator(server_url: str, headers: dict[str, str], path: str) -> AsyncIterator[YNotebook]:
    """A client of the notebook at `path` (an API path) on the server at `server_url` (ending in `/`),
    yielded once its document has synced with the room."""
    async with httpx.AsyncClient(headers=headers, timeout=30) as client:
        response = await client.put(
            f"{server_url}api/collaboration/session/{quote(path)}", json={"format": "json", "type": "notebook"}
        )
    response.raise_for_status()
    session = response.json()
    room = f"{session['format']}:{session['type']}:{session['fileId']}"
    ws_url = (
        server_url.replace("http://", "ws://", 1) + f"api/collaboration/room/{room}?sessionId={session['sessionId']}"
    )
    connection = await websocket_connect(HTTPRequest(ws_url, headers=headers))
    document = YNotebook()
    try:
        async with Provider(document.ydoc, TornadoChannel(connection, room)) as provider:
            await asyncio.wait_for(provider.synced.wait(), 30)
            yield document
    finally:
        connection.close()


async def converged(
    first: YNotebook, second: YNotebook, until: Callable[[dict[str, Any]], bool] = lambda _: True
) -> dict[str, Any]:
    """The notebook both documents hold once they hold the same one and it satisfies `until` (checked
    whenever either document changes, never by polling)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[dict[str, Any]] = loop.create_future()

    def check() -> None:
        content = read_document(first)
        if not done.done() and content == read_document(second) and until(content):
            done.set_result(content)

    subscriptions = [(doc, doc.ydoc.observe(lambda _event: loop.call_soon(check))) for doc in (first, second)]
    check()
    try:
        return await asyncio.wait_for(done, 30)
    finally:
        for doc, subscription in subscriptions:
            doc.ydoc.unobserve(subscription)
