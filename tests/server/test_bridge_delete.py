"""Deleting a session that another client is using: the delete wins, whatever that client asks meanwhile.

Regression (issue 27, item 1): `PrimeBridge.delete` took the session out of the open set, awaited its
shutdown, then removed the file; a request for that id in between reopened it from the file still there,
so the session went on answering 200 with no file, and its kernel stayed alive.
"""

from __future__ import annotations

import asyncio

import pytest
from kit.server import PrimeClient


async def poll(prime: PrimeClient, session_id: str, first: asyncio.Event, stop: asyncio.Event) -> list[int]:
    """What a panel showing the session does: ask for it again and again, until told to stop."""
    codes = []
    while not stop.is_set():
        codes.append((await prime.status("GET", "chat/session", params={"sessionId": session_id}))[0])
        first.set()
    return codes


@pytest.mark.prime_settings(tools=["ipython"])
async def test_a_session_deleted_while_another_client_polls_it_stays_deleted(prime: PrimeClient) -> None:
    for _ in range(20):
        session_id = await prime.new_session()
        first, stop = asyncio.Event(), asyncio.Event()
        poller = asyncio.ensure_future(poll(prime, session_id, first, stop))
        await first.wait()
        await prime.call("DELETE", "chat/sessions", {"sessionId": session_id})
        stop.set()
        codes = await poller
        assert set(codes) <= {200, 404}, codes
        assert (await prime.status("GET", "chat/session", params={"sessionId": session_id}))[0] == 404
        assert (await prime.get("chat/sessions"))["sessions"] == []
        kernel = (await prime.get("info"))["kernel"]
        assert (kernel["starting"], kernel["running"]) == (0, 0)
        assert (await prime.status("GET", "../../api/kernels"))[1] == []
