"""A stand-in for another version of the server (version.py compatibility tests): a real HTTP server whose
answers the test fixes, the way a server of another prime-jupyter version would answer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import tornado.httpserver
import tornado.testing
import tornado.web

from prime_jupyter.connection.http import ServerEndpoint
from prime_jupyter.protocol.version import CAPABILITIES, PROTOCOL_VERSION

__all__ = ["CONNECTION", "OtherServer", "serve"]

CONNECTION = "/prime/api/connection/"


class OtherServer:
    """What another version of the server answers: its protocol, its capabilities, its event stream."""

    def __init__(self, protocol_version: int = PROTOCOL_VERSION, capabilities: tuple[str, ...] = CAPABILITIES) -> None:
        self.protocol_version = protocol_version
        self.capabilities = list(capabilities)
        self.requests: list[tuple[str, str, Any]] = []
        self.stream = b""
        self.last_seq = 100
        self.snapshot: dict[str, Any] = {}
        """What its attach snapshot holds besides the state and the cursor (messages, entryIds, ...)."""
        self.branch: dict[str, Any] = {"messages": [], "entryIds": []}
        """What it answers `get_messages`."""

    def state(self, session_id: str) -> dict[str, Any]:
        return {"sessionId": session_id, "cwd": "/"}

    def answer(self, path: str, body: Any) -> dict[str, Any]:
        self.requests.append(("POST", path, body))
        if path.endswith("attach"):
            snapshot = {"state": self.state("old-1"), "cursor": 100, **self.snapshot}
            return {"version": "0.0.9", "protocolVersion": self.protocol_version, "schemaRevision": 1,
                    "capabilities": self.capabilities, "snapshot": snapshot}  # fmt: skip
        if path.endswith("shell"):  # a server before `shell-events`: no id, no events, the answer at the end
            return {"command": body["command"], "output": "old", "exitCode": 0}
        if path.endswith("wait"):
            return {"state": self.state("old-1"), "cursor": self.last_seq}
        if body["command"]["type"] == "get_messages":
            return self.branch
        if body["command"]["type"] == "get_state":
            return self.state("old-1")
        if body["command"]["type"] == "get_session_view":
            return {"cwd": "/"}
        if body["command"]["type"] == "new_session":
            return {"snapshot": {"state": self.state("old-2"), "cursor": 7}}
        return {"ok": True}

    def app(self) -> tornado.web.Application:
        server = self

        class Info(tornado.web.RequestHandler):
            def get(self) -> None:
                server.requests.append(("GET", self.request.path, None))
                info = {"version": "0.0.9", "protocolVersion": server.protocol_version, "schemaRevision": 1,
                        "capabilities": server.capabilities, "kernel": {"ready": True}}  # fmt: skip
                self.finish(info)

        class Post(tornado.web.RequestHandler):
            def post(self) -> None:
                self.finish(server.answer(self.request.path, json.loads(self.request.body)))

        class Events(tornado.web.RequestHandler):
            async def get(self) -> None:
                self.set_header("Content-Type", "text/event-stream")
                self.write(b'data: {"type":"connected","sessionId":"old-1","protocolVersion":1,"schemaRevision":1}\n\n')
                self.write(server.stream)
                await self.flush()
                await asyncio.Event().wait()  # held open until the client goes away

        return tornado.web.Application(
            [(r"/prime/api/info", Info), (CONNECTION + "events", Events), (CONNECTION + r"\w+", Post)]
        )

    def commands(self) -> list[str]:
        """The types of the commands it was sent, in order."""
        return [body["command"]["type"] for _, path, body in self.requests if path.endswith("command")]


@contextmanager
def serve(server: OtherServer) -> Iterator[ServerEndpoint]:
    """`server` listening on a free local port, for the time of the block (in the running event loop)."""
    sock, port = tornado.testing.bind_unused_port()
    http = tornado.httpserver.HTTPServer(server.app())
    http.add_socket(sock)
    try:
        yield ServerEndpoint(f"http://127.0.0.1:{port}/", "t")
    finally:
        http.stop()
