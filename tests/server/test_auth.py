"""Every route of the extension is authenticated and authorized (resource `prime`), and browser POSTs
need XSRF. Routes and verbs are enumerated from the route table, so a new route cannot slip through."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from jupyter_server.auth.authorizer import Authorizer
from kit.server import PrimeClient
from tornado import web

from prime_jupyter.server.lazy import LazyRoutes
from prime_jupyter.server.routes import API_PREFIX, route_table

VERBS = ("GET", "POST", "PATCH", "DELETE", "PUT")


def routes_and_verbs() -> list[tuple[str, str]]:
    found = []
    for pattern, handler in route_table():
        assert pattern.startswith(API_PREFIX), pattern
        path = re.sub(r"\([^)]*\)", "x", pattern.removeprefix(API_PREFIX))  # a value for each path argument
        for verb in VERBS:
            if getattr(handler, verb.lower()) is not getattr(web.RequestHandler, verb.lower()):
                found.append((path, verb))
    return found


def test_the_table_has_the_chat_routes() -> None:
    paths = {path for path, _ in routes_and_verbs()}
    assert {"info", "chat", "chat/new", "chat/events", "chat/session", "chat/sessions", "chat/command"} <= paths
    assert ("chat/sessions", "DELETE") in routes_and_verbs()


@pytest.mark.parametrize(("path", "verb"), routes_and_verbs())
async def test_every_route_refuses_unauthenticated_requests(prime: PrimeClient, path: str, verb: str) -> None:
    body = b'{"sessionId": "x"}' if verb != "GET" else None
    status, _ = await prime.status(verb, path, body, headers={"Authorization": ""}, params={"sessionId": "x"})
    assert status in (401, 403)


class RefusePrime(Authorizer):  # type: ignore[misc]
    """Lets everything through except the prime extension."""

    def is_authorized(self, handler: Any, user: Any, action: str, resource: str) -> bool:
        return resource != "prime"


class TestAuthorization:
    @pytest.fixture
    def jp_server_config(self, agent_dir: Path) -> dict[str, Any]:
        return {
            "ServerApp": {"jpserver_extensions": {"prime_jupyter": True}, "authorizer_class": RefusePrime},
            "PrimeApp": {"agent_dir": str(agent_dir)},
        }

    @pytest.mark.parametrize(("path", "verb"), routes_and_verbs())
    async def test_every_route_asks_the_authorizer(self, prime: PrimeClient, path: str, verb: str) -> None:
        body = b'{"sessionId": "x"}' if verb != "GET" else None
        status, reply = await prime.status(verb, path, body, params={"sessionId": "x"})
        assert status == 403 and "prime" in reply["message"]

    async def test_other_resources_are_untouched(self, jp_fetch: Any) -> None:
        assert (await jp_fetch("api", "status")).code == 200


async def test_a_browser_post_needs_the_xsrf_token(prime: PrimeClient) -> None:
    token = prime.headers["Authorization"].removeprefix("token ")
    async with httpx.AsyncClient() as browser:
        assert (await browser.get(prime.root + f"info?token={token}")).status_code == 200  # logs in: a cookie
        assert (await browser.get(prime.root + "info")).status_code == 200
        refused = await browser.post(prime.root + "chat/new", json={})
        assert refused.status_code == 403 and "_xsrf" in refused.json()["message"]
        browser.cookies.set("_xsrf", "f00dcafe" * 4)
        accepted = await browser.post(prime.root + "chat/new", json={}, headers={"X-XSRFToken": "f00dcafe" * 4})
        assert accepted.status_code == 200 and accepted.json()["session"]["sessionId"]


def test_a_route_without_authentication_is_refused_when_the_routes_load(jp_serverapp: Any) -> None:
    class Open(web.RequestHandler):
        async def get(self) -> None:
            self.finish("{}")

    router = LazyRoutes(jp_serverapp.web_app, "/", lambda: [(API_PREFIX + "open", Open)])
    with pytest.raises(RuntimeError, match="GET of Open"):
        router.table()
