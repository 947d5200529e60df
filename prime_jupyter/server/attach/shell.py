"""`POST prime/api/connection/shell`: run the user's shell command (`!cmd`) in a session of this server.

The command runs in the session's directory, which must lie inside the server's root (unless the
server allows more, as for every `cwd`); its output is bounded as the `bash` tool's is, and it is kept in
the session's transcript. The answer comes when the command ends; an abort of the session cancels it.
Meanwhile its `shell_execution_*` events reach every client on the events stream (capability `shell-events`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from jupyter_server.auth.decorator import authorized
from tornado import web

from prime_jupyter.protocol.shell import ShellRequest
from prime_jupyter.runtime.session_ops import confine
from prime_jupyter.server.http.base import PrimeHandler

__all__ = ["ConnectionShellHandler"]


class ConnectionShellHandler(PrimeHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parse(ShellRequest)
        live = await self.bridge.get(request.session_id)
        cwd = live.connection.session.cwd
        await asyncio.to_thread(confine, Path(cwd), self.bridge.config.confined_to, "cwd", cwd)
        result = await live.connection.run_shell(request.command, request.include_in_context, request.execution_id)
        self.reply(result)
