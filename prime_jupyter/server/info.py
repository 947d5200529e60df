"""`GET info`: what this server is and serves, asked first by every client.

The panel checks the version and the capabilities before it draws (a 404 here means the extension is
not installed); `HttpAgentConnection` reads them before attaching. The answer also carries the kernel
readiness of the sessions (`host.kernels.KernelReadiness`).
"""

from __future__ import annotations

from typing import Final

from jupyter_server.auth.decorator import authorized
from tornado import web

from prime_jupyter._version import __version__
from prime_jupyter.protocol.requests import InfoResponse
from prime_jupyter.protocol.version import CAPABILITIES, PROTOCOL_VERSION, SCHEMA_REVISION
from prime_jupyter.server.http.base import PrimeHandler

__all__ = ["SERVED_CAPABILITIES", "InfoHandler"]

SERVED_CAPABILITIES: Final[tuple[str, ...]] = CAPABILITIES
"""What this server offers: every capability of the protocol, `connection` included, because
`routes.route_table` always installs the connection routes (`tests/server/test_info.py` checks that
the two agree). A constant, so neither `GET info` nor `connection/attach` imports the route table
to find out."""


class InfoHandler(PrimeHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        info = InfoResponse(
            version=__version__,
            protocol_version=PROTOCOL_VERSION,
            schema_revision=SCHEMA_REVISION,
            capabilities=list(SERVED_CAPABILITIES),
            kernel=self.bridge.kernels.status,
        )
        self.reply(info)
