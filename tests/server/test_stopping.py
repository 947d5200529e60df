"""Issue 15 (the flaky restart test): while the server stops, a request that still reaches it over a
kept-alive connection is refused (503) instead of opening a session or starting a run in a process
about to exit; and the event stream tells a browser to reconnect within a second."""

from __future__ import annotations

from typing import Any

import httpx
from kit.server import PrimeClient

from prime_jupyter.server.chat.handlers import RECONNECT_MS
from prime_jupyter.server.config import BRIDGE_SETTING


async def test_a_request_to_a_stopping_server_is_a_503(prime: PrimeClient, jp_serverapp: Any) -> None:
    session_id = await prime.new_session()
    await jp_serverapp.web_app.settings[BRIDGE_SETTING]().shutdown()  # what stopping the server does first
    for verb, path in (("GET", "info"), ("GET", f"chat/events?sessionId={session_id}"), ("POST", "chat")):
        code, reply = await prime.status(verb, path, b"{}" if verb == "POST" else None)
        assert code == 503 and "shutting down" in reply["message"]


async def test_the_event_stream_asks_for_a_prompt_reconnect(prime: PrimeClient) -> None:
    session_id = await prime.new_session()
    async with httpx.AsyncClient(headers=prime.headers, timeout=30) as client:
        async with client.stream("GET", prime.root + "chat/events", params={"sessionId": session_id}) as reply:
            first = await anext(reply.aiter_bytes())
    assert first.startswith(f"retry: {RECONNECT_MS}\ndata: ".encode()) and b'"type":"connected"' in first
