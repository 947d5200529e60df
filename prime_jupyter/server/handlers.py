"""Tornado handlers under `<base_url>prime/api/`: thin, authenticated, authorized (resource `prime`)."""

from __future__ import annotations

import json

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from tornado import web

from prime_jupyter._version import __version__

__all__ = ["InfoHandler", "route_table"]

AUTH_RESOURCE = "prime"


class PrimeHandler(APIHandler):
    auth_resource = AUTH_RESOURCE


class InfoHandler(PrimeHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.finish(json.dumps({"version": __version__}))


def route_table() -> list[tuple[str, type[PrimeHandler]]]:
    return [(r"/prime/api/info", InfoHandler)]
