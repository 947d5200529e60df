"""`KernelOps` over a jupyter_client multi-kernel manager (the Jupyter server's, or a private one).

One `AsyncKernelClient` per kernel. An execution reads iopub directly (no dispatcher task, so the tool
adds almost nothing to a raw round trip), keeps only messages whose `parent_header.msg_id` is its own
(iopub is shared with every other client of the kernel, such as a Lab console), and ends when it has
seen both `status: idle` and the `execute_reply`. While it waits it checks, every `poll_s`, that the
kernel process is still the one it started; a crash, a restart or a shutdown by someone else becomes a
`KernelDiedError` instead of a wait forever.

The manager's auto-restarter is switched off for our kernels: the provisioner owns restarts, so the
model is always told about them and two restarts never race.

Remote kernels (a server started with `--gateway-url`) go the same way, over `GatewayChannels` (one
websocket) instead of ZMQ sockets; a restart by the gateway is seen on iopub, not as a new process id.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import queue
import time
import uuid
from dataclasses import dataclass
from typing import Any, Protocol, cast

from pydantic import JsonValue

from prime_jupyter.kernel import reaper
from prime_jupyter.kernel.gateway import GatewayChannels, is_gateway_kernel
from prime_jupyter.kernel.ops import (
    ExecuteReply,
    KernelDiedError,
    KernelError,
    KernelInfo,
    OutputMessage,
    OutputSink,
    describe_exit,
)

__all__ = ["ManagedKernelOps", "MultiKernelManagerLike", "launch_managed"]

_OUTPUT_TYPES = frozenset({"stream", "display_data", "update_display_data", "execute_result", "error", "clear_output"})
Msg = dict[str, Any]


class MultiKernelManagerLike(Protocol):
    """What we use of `jupyter_client.AsyncMultiKernelManager` (and the server's subclass)."""

    async def start_kernel(self, **kwargs: Any) -> str: ...
    def get_kernel(self, kernel_id: str) -> Any: ...
    async def restart_kernel(self, kernel_id: str, now: bool = False) -> Any: ...
    async def shutdown_kernel(self, kernel_id: str, now: bool = False) -> Any: ...


@dataclass
class _Pending:
    msg_id: str
    idle: bool = False
    replied: bool = False


class ManagedKernelOps:
    """One kernel of `manager`, connected and ready (build it with `await ManagedKernelOps.connect`)."""

    def __init__(
        self, manager: MultiKernelManagerLike, kernel_id: str, *, poll_s: float = 0.2, borrowed: bool = False
    ) -> None:
        self._manager = manager
        self._kernel_id = kernel_id
        self._poll_s = poll_s
        self.borrowed = borrowed
        """Someone else's kernel (a notebook's): `shutdown` only disconnects, its restarter stays theirs."""
        self._client: Any = None
        self._pid: object = None
        self._pending: _Pending | None = None
        self._info: dict[str, Any] = {}

    @classmethod
    async def connect(
        cls, manager: MultiKernelManagerLike, kernel_id: str, *, ready_timeout: float = 60.0
    ) -> ManagedKernelOps:
        """Take over a kernel just started by `manager`: own its restarts, connect, wait until ready."""
        ops = cls(manager, kernel_id)
        km = manager.get_kernel(kernel_id)
        km.stop_restarter()
        km.autorestart = False
        reaper.track(km)
        await ops._connect(ready_timeout)
        return ops

    @classmethod
    async def attach(
        cls, manager: MultiKernelManagerLike, kernel_id: str, *, ready_timeout: float = 60.0
    ) -> ManagedKernelOps:
        """Connect to a kernel that stays someone else's (a notebook's own): its restarter and reaping are
        left as they are, and `shutdown` only closes our connection."""
        ops = cls(manager, kernel_id, borrowed=True)
        await ops._connect(ready_timeout)
        return ops

    @property
    def kernel_id(self) -> str:
        return self._kernel_id

    async def execute(self, code: str, sink: OutputSink, *, silent: bool = False) -> ExecuteReply:
        msg_id = self._client.execute(
            code, silent=silent, store_history=not silent, allow_stdin=False, stop_on_error=True
        )
        pending = self._pending = _Pending(msg_id)
        await self._until_idle(pending, sink)
        reply = await self._until_reply(pending)
        self._pending = None
        status = reply.get("status")
        count = reply.get("execution_count")
        return ExecuteReply(
            status=status if status in ("ok", "error", "aborted") else "error",
            execution_count=count if isinstance(count, int) else None,
        )

    async def wait_idle(self, seconds: float) -> bool:
        pending = self._pending
        if pending is None:
            return True
        try:
            await asyncio.wait_for(self._settle(pending), seconds)
        except TimeoutError:
            return False
        self._pending = None
        return True

    async def interrupt(self) -> None:
        km = self._lookup()
        if km is not None:
            with contextlib.suppress(Exception):  # gone or not running: the caller finds out soon enough
                await km.interrupt_kernel()

    async def restart(self) -> None:
        self._close_client()
        km = self._kernel_manager()
        if not (await km.is_alive() and _pid(km) != self._pid):  # nobody restarted it for us
            waiter = await self._manager.restart_kernel(self._kernel_id, now=True)
            if inspect.isawaitable(waiter):  # jupyter_server: resolves on the first kernel_info reply
                with contextlib.suppress(Exception):
                    await waiter
        self._pending = None
        await self._connect(60.0)

    async def shutdown(self) -> None:
        self._close_client()
        if self.borrowed:
            return
        km = self._lookup()
        if km is None:
            return
        try:
            await asyncio.wait_for(self._manager.shutdown_kernel(self._kernel_id, now=False), 10)
        except Exception:
            reaper.reap_one(km)
        reaper.untrack(km)

    async def is_alive(self) -> bool:
        km = self._lookup()
        return km is not None and bool(await km.is_alive()) and _pid(km) == self._pid and not self._relay_lost()

    async def kernel_info(self) -> KernelInfo:
        info = self._info
        language = info.get("language_info", {})
        return KernelInfo(
            kernel_id=self._kernel_id,
            kernel_name=str(getattr(self._kernel_manager(), "kernel_name", "")),
            language=str(language.get("name", "")),
            language_version=str(language.get("version", "")),
            implementation=str(info.get("implementation", "")),
            protocol_version=str(info.get("protocol_version", "")),
        )

    # -- internals -------------------------------------------------------------------------------

    def _lookup(self) -> Any:
        """Our kernel's `KernelManager`, or None once the manager forgot it (KeyError, or HTTP 404 in a
        server)."""
        try:
            return self._manager.get_kernel(self._kernel_id)
        except Exception:
            return None

    def _kernel_manager(self) -> Any:
        km = self._lookup()
        if km is None:
            raise KernelDiedError("the kernel was shut down by another client")
        return km

    async def _connect(self, ready_timeout: float) -> None:
        km = self._kernel_manager()
        self._pid = _pid(km)
        self._client = GatewayChannels(km) if is_gateway_kernel(km) else km.client()
        # km.client() clones the manager's session, id included, and the kernel's ROUTER sockets route
        # replies by that id: another client made the same way would steal our replies. Use our own.
        self._client.session.session = str(uuid.uuid4())
        try:
            started = self._client.start_channels()
            if inspect.isawaitable(started):  # the gateway's websocket
                await started
            await self._wait_ready(ready_timeout)
        except BaseException:
            self._close_client()
            raise

    def _close_client(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                client.stop_channels()

    async def _wait_ready(self, seconds: float) -> None:
        """Until a `kernel_info` request is answered on shell and its status seen on iopub.

        The iopub check matters: a SUB socket that has not joined yet silently drops messages, and an
        execution that misses its `idle` would wait forever.
        """
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            msg_id = self._client.kernel_info()
            reply = await self._await_parent(self._client.shell_channel, msg_id, 1.0)
            if reply is not None and await self._await_parent(self._client.iopub_channel, msg_id, 0.5):
                self._info = reply["content"]
                return
            await self._check_alive()
        raise KernelError(f"the kernel did not answer within {seconds:.0f} s")

    async def _await_parent(self, channel: Any, msg_id: str, seconds: float) -> Msg | None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                msg: Msg = await channel.get_msg(timeout=left)
            except queue.Empty:
                return None
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg
        return None

    async def _next(self, channel: Any) -> Msg:
        while True:
            try:
                msg = cast(Msg, await channel.get_msg(timeout=self._poll_s))
            except queue.Empty:
                await self._check_alive()
                continue
            if self._relay_lost():
                await self._check_alive()
            return msg

    def _relay_lost(self) -> bool:
        """A gateway said our kernel restarted (it died), or its websocket closed."""
        client = self._client
        return isinstance(client, GatewayChannels) and (client.restarted or client.closed)

    async def _check_alive(self) -> None:
        km = self._kernel_manager()
        if not await km.is_alive():
            process = getattr(km.provisioner, "process", None)
            raise KernelDiedError(describe_exit(getattr(process, "returncode", None)))
        if _pid(km) != self._pid:
            raise KernelDiedError("the kernel was restarted by another client")
        if self._relay_lost():
            raise KernelDiedError("the kernel died and the gateway restarted it, or its connection was lost")

    async def _until_idle(self, pending: _Pending, sink: OutputSink | None) -> None:
        iopub = self._client.iopub_channel
        while not pending.idle:
            msg = await self._next(iopub)
            if msg["parent_header"].get("msg_id") != pending.msg_id:
                continue  # another client's execution, or one we abandoned
            kind = msg["msg_type"]
            if kind == "status":
                pending.idle = msg["content"].get("execution_state") == "idle"
            elif kind in _OUTPUT_TYPES and sink is not None:
                sink(OutputMessage(kind, cast(dict[str, JsonValue], msg["content"])))

    async def _until_reply(self, pending: _Pending) -> Msg:
        shell = self._client.shell_channel
        while True:
            msg = await self._next(shell)
            if msg["parent_header"].get("msg_id") == pending.msg_id:
                pending.replied = True
                return cast(Msg, msg["content"])

    async def _settle(self, pending: _Pending) -> None:
        await self._until_idle(pending, None)
        if not pending.replied:
            await self._until_reply(pending)


def _pid(kernel_manager: Any) -> object:
    return getattr(kernel_manager.provisioner, "pid", None)


async def launch_managed(manager: MultiKernelManagerLike, **start_kwargs: Any) -> ManagedKernelOps:
    """Start a kernel with `manager.start_kernel(**start_kwargs)` and connect to it; raises `KernelError`."""
    name = start_kwargs.get("kernel_name", "")
    try:
        kernel_id = await manager.start_kernel(**start_kwargs)
    except Exception as error:
        raise KernelError(f"could not start the '{name}' kernel: {error}") from error
    try:
        return await ManagedKernelOps.connect(manager, kernel_id)
    except BaseException as error:
        with contextlib.suppress(Exception):
            await manager.shutdown_kernel(kernel_id, now=True)
        if isinstance(error, Exception) and not isinstance(error, KernelError):
            raise KernelError(f"the '{name}' kernel started but did not answer: {error}") from error
        raise
