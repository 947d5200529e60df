"""The channels of a remote kernel: one websocket to a Jupyter gateway (Kernel Gateway, Enterprise Gateway).

A server started with `--gateway-url` hands out `GatewayKernelManager`s (jupyter_server.gateway). Their
own client cannot serve the agent: it opens its websocket with a blocking call on the server's event
loop and without the gateway's auth headers (a gateway with a token refuses it), and its queues are
polled by spinning on `sleep(0)`. `GatewayChannels` opens the websocket as jupyter_server's own
kernel websocket proxy does (tornado, `GatewayClient.load_connection_args`: headers, TLS, timeouts)
and offers the part of a jupyter_client `AsyncKernelClient` that `ManagedKernelOps` uses: `session`,
`execute`, `kernel_info`, `shell_channel`/`iopub_channel` with `get_msg(timeout=)`, `stop_channels`.

There is no process id to compare across a restart, so a restart is seen on iopub: the gateway sends
`status: restarting` (or `dead`) when its restarter replaced a kernel that died; `restarted` tells.
A websocket that closed is a lost kernel (`closed`; reads raise `KernelDiedError`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
from typing import Any

from prime_jupyter.kernel.ops import KernelDiedError

__all__ = ["GatewayChannels", "is_gateway_kernel"]

Msg = dict[str, Any]
_LOST = "the connection to the kernel was lost (the gateway closed its websocket)"


def is_gateway_kernel(kernel_manager: object) -> bool:
    """A kernel of jupyter_server's gateway manager (or a subclass of it, as Enterprise Gateway's clients use)."""
    return any(
        cls.__name__ == "GatewayKernelManager" and cls.__module__.startswith("jupyter_server.gateway")
        for cls in type(kernel_manager).__mro__
    )


class _Channel:
    """Messages of one channel, as the websocket delivered them."""

    def __init__(self, owner: GatewayChannels) -> None:
        self._owner = owner
        self._queue: asyncio.Queue[Msg | None] = asyncio.Queue()

    async def get_msg(self, timeout: float | None = None) -> Msg:  # noqa: ASYNC109 (jupyter_client's signature)
        """The next message; `queue.Empty` after `timeout` s, `KernelDiedError` once the socket closed."""
        if self._owner.closed and self._queue.empty():
            raise KernelDiedError(_LOST)
        try:
            msg = await asyncio.wait_for(self._queue.get(), timeout)
        except TimeoutError:
            raise queue.Empty from None
        if msg is None:
            raise KernelDiedError(_LOST)
        return msg

    def put(self, msg: Msg | None) -> None:
        self._queue.put_nowait(msg)


class GatewayChannels:
    """One websocket to the channels of the kernel `kernel_manager` (a `GatewayKernelManager`) manages."""

    def __init__(self, kernel_manager: Any) -> None:
        self.kernel_id = str(kernel_manager.kernel_id)
        self.session = kernel_manager.session.clone()
        self.shell_channel = _Channel(self)
        self.iopub_channel = _Channel(self)
        self.closed = False
        self.restarted = False
        """The gateway announced on iopub that the kernel restarted (or died for good)."""
        self._socket: Any = None
        self._reader: asyncio.Task[None] | None = None

    async def start_channels(self) -> None:
        from jupyter_server.gateway.gateway_client import GatewayClient
        from jupyter_server.utils import url_escape, url_path_join
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        gateway = GatewayClient.instance()
        url = url_path_join(gateway.ws_url or "", gateway.kernels_endpoint, url_escape(self.kernel_id), "channels")
        url += f"?session_id={url_escape(self.session.session)}"
        request = HTTPRequest(url, **gateway.load_connection_args())  # type: ignore[no-untyped-call]
        self._socket = await websocket_connect(request)
        self._reader = asyncio.ensure_future(self._read())

    def stop_channels(self) -> None:
        self.closed = True
        if self._socket is not None:
            self._socket.close()
        if self._reader is not None:
            self._reader.cancel()

    def execute(self, code: str, *, silent: bool, store_history: bool, allow_stdin: bool, stop_on_error: bool) -> str:
        content = {
            "code": code,
            "silent": silent,
            "store_history": store_history,
            "user_expressions": {},
            "allow_stdin": allow_stdin,
            "stop_on_error": stop_on_error,
        }
        return self._send("execute_request", content)

    def kernel_info(self) -> str:
        return self._send("kernel_info_request", {})

    def _send(self, msg_type: str, content: dict[str, Any]) -> str:
        from jupyter_client.jsonutil import json_default

        if self.closed:
            raise KernelDiedError(_LOST)
        msg = self.session.msg(msg_type, content)
        msg["channel"] = "shell"
        self._socket.write_message(json.dumps(msg, default=json_default))
        return str(msg["header"]["msg_id"])

    async def _read(self) -> None:
        try:
            while (raw := await self._socket.read_message()) is not None:
                if isinstance(raw, bytes):
                    continue  # a binary frame: buffers of a comm message, nothing the agent reads
                msg = json.loads(raw)
                channel = msg.get("channel")
                if channel == "iopub":
                    state = msg.get("content", {}).get("execution_state")
                    if msg.get("msg_type") == "status" and state in ("restarting", "dead"):
                        self.restarted = True
                    self.iopub_channel.put(msg)
                elif channel == "shell":
                    self.shell_channel.put(msg)
        finally:
            self.closed = True
            for channel in (self.shell_channel, self.iopub_channel):
                with contextlib.suppress(Exception):
                    channel.put(None)
