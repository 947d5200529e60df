"""`LazyRoutes`: the extension's routes, imported on the first request under `<base_url>prime/api/`.

Loading the extension must cost `jupyter server` next to nothing (design.md D10): the handlers pull in
pydantic models, the runtime and the bridge, a few hundred milliseconds and about ten megabytes. So the
server gets one rule for the whole prefix, whose target is this router; the first request that reaches
it imports the route table (`routes.route_table`) and every request is dispatched to its handler from
then on. The handlers are ordinary Jupyter handlers, authenticated and authorized as usual.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tornado import httputil, web
from tornado.routing import Router

__all__ = ["API_PATH", "LazyRoutes"]

API_PATH = "prime/api/"

RouteTable = list[tuple[str, type[web.RequestHandler]]]


def _route_table() -> RouteTable:
    from prime_jupyter.server.routes import route_table

    return list(route_table())


class LazyRoutes(Router):
    SUPPORTED_METHODS: tuple[str, ...] = ()
    """Jupyter checks every registered handler's verbs for `@web.authenticated`; this router has none of
    its own, and runs the same check on the real handlers when it loads them."""

    def __init__(self, application: web.Application, base_url: str, load: Callable[[], RouteTable] = _route_table):
        self._application = application
        self._base = base_url.rstrip("/")
        self._load = load
        self._table: list[tuple[re.Pattern[str], type[web.RequestHandler]]] | None = None

    def table(self) -> list[tuple[re.Pattern[str], type[web.RequestHandler]]]:
        if self._table is None:
            routes = self._load()
            _check_auth(self._application, routes)
            self._table = [(re.compile(re.escape(self._base) + pattern + "$"), handler) for pattern, handler in routes]
        return self._table

    def find_handler(self, request: httputil.HTTPServerRequest, **kwargs: Any) -> httputil.HTTPMessageDelegate | None:
        for pattern, handler in self.table():
            if pattern.match(request.path):
                return self._application.get_handler_delegate(request, handler)
        return None


def _check_auth(application: web.Application, routes: RouteTable) -> None:
    """Jupyter's own check that every verb is `@web.authenticated` (when this server has it)."""
    check = getattr(application, "_check_handler_auth", None)
    if check is None:
        return
    missing = [line for pattern, handler in routes for line in check(pattern, handler)]
    if missing:
        raise RuntimeError("prime routes without @web.authenticated:\n" + "\n".join(missing))
