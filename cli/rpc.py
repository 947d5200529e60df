"""`jupyter prime --mode rpc` and `jupyter prime attach --mode rpc`: a session driven by JSON lines on stdio.

A program spawns this process and writes one command a line on stdin, `{"id"?, "type", ...}`
(`rpc_commands`: the connection's commands, under the original system's names where they differ,
upstream.md §8.5). Each is answered on stdout by `{"id"?, "type": "response", "command", "success",
"data" | "error"}`, and the session's events go out on stdout as they happen, each in its `codec.py` JSON
form (what `--mode json` prints). Lines are split on "\\n" only.

Commands are carried out one at a time, in the order they came; `prompt` answers once the run started
(or the message was queued), and the run's events and failures follow. An approval or a question is a
`question_asked` event; the client answers it with `answer_question`. A line that is no command (not
JSON, not an object, an unknown type, a missing or invalid field) is answered with an error, and the
process goes on reading.

When stdin ends, a session run here lets its run finish (a question asked from then on is dismissed:
nobody is left to answer it, so an approval is declined), then the process exits; a session in a Jupyter
server (`attach`) keeps running there, and the process exits at once. Attached, the questions pending in
the server are sent first, as the `question_asked` events this process missed. Ctrl+C or SIGTERM ends the
process at once (exit 128 + the signal), a run of its own aborted first. Nothing but these lines is written
to stdout (`stdio.protocol_streams`); logs go to stderr.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import TYPE_CHECKING, Any, Literal

from pydantic import JsonValue

from prime_jupyter.connection import ServerTarget, open_connection
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.types import (
    ClientNotice,
    Closed,
    ConnectionEvent,
    ConnectionStatus,
    SessionEventReceived,
)
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.codec import event_to_json
from prime_jupyter.protocol.events import QuestionAsked, QuestionResolved
from prime_jupyter.protocol.wire import WireModel, dump_json

from .rpc_commands import BadCommand, ReadCommand, RequestId, carry_out, read_command
from .stdio import LINE_LIMIT, protocol_streams

if TYPE_CHECKING:
    from prime_jupyter.connection import LocalTarget

__all__ = ["RpcResponse", "RpcServer", "serve"]

log = logging.getLogger("prime_jupyter.cli.rpc")


class RpcResponse(WireModel):
    """The answer to one command line: `data` (the command's result) when it succeeded, else `error`."""

    id: RequestId | None = None
    type: Literal["response"] = "response"
    command: str
    success: bool
    data: JsonValue = None
    error: str | None = None


class RpcServer:
    """Reads commands from `reader`, carries them out on `connection`, writes answers and events to `writer`."""

    def __init__(self, connection: AgentConnection, writer: asyncio.StreamWriter, *, in_server: bool) -> None:
        """`in_server`: the session lives in a Jupyter server (`attach`): it may have questions pending when
        this process attaches, and it goes on running after this process ends."""
        self._connection = connection
        self._writer = writer
        self._in_server = in_server
        self._pending: set[str] = set()
        self._dismissing: set[asyncio.Task[bool]] = set()
        self._input_ended = False
        self._gone = False
        self._stopped: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        """Set to the exit code when the process must end before stdin does (a signal, the session lost)."""
        self._unsubscribe = connection.subscribe(self._on_event)

    async def serve(self, reader: asyncio.StreamReader) -> int:
        """Serve until stdin ends (or a signal came, or stdout's reader or the session's server went away);
        the exit code."""
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, self._on_signal, signum)
        try:
            if self._in_server:
                await self._announce_pending()
            while not self._gone:
                line = await self._next_line(reader)
                if line is None:
                    break
                if line.strip():
                    await self._handle(line)
            if not (self._gone or self._stopped.done()):
                await self._end_of_input()
            elif not self._in_server:  # the process ends now: so does the run it holds
                await self._connection.abort()
                await self._connection.wait_for_idle()
            return self._stopped.result() if self._stopped.done() else 0
        finally:
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(signum)
            self._unsubscribe()

    def _on_signal(self, signum: int) -> None:
        """Ctrl+C or SIGTERM: stop serving (a run of this process is aborted), exit 128 + the signal."""
        log.info("%s: stopping", signal.Signals(signum).name)
        self._stop(128 + signum)

    def _stop(self, code: int) -> None:
        if not self._stopped.done():
            self._stopped.set_result(code)

    async def _next_line(self, reader: asyncio.StreamReader) -> bytes | None:
        """The next line of stdin; None at its end, or once the process must stop."""
        reading = asyncio.ensure_future(reader.readline())
        either: list[asyncio.Future[Any]] = [reading, self._stopped]
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if not reading.done():
            reading.cancel()
            return None
        try:
            line = reading.result()
        except ValueError:  # longer than the limit: the reader dropped it
            self._respond(RpcResponse(command="parse", success=False, error=f"a line longer than {LINE_LIMIT} bytes"))
            return b""
        return line or None

    async def _handle(self, line: bytes) -> None:
        try:
            read = read_command(line)
        except BadCommand as exc:
            self._respond(RpcResponse(id=exc.request_id, command=exc.command, success=False, error=str(exc)))
        else:
            self._respond(await self._carry_out(read))
        await self._drain()

    async def _carry_out(self, read: ReadCommand) -> RpcResponse:
        try:
            data = await carry_out(self._connection, read)
        except (PrimeError, ValueError) as exc:
            return RpcResponse(id=read.request_id, command=read.name, success=False, error=str(exc))
        except Exception as exc:  # a bug of ours: say so, keep serving
            log.exception("%s failed", read.name)
            return RpcResponse(id=read.request_id, command=read.name, success=False, error=f"internal error: {exc}")
        return RpcResponse(id=read.request_id, command=read.name, success=True, data=data)

    async def _announce_pending(self) -> None:
        """The questions pending as this process attached, as the `question_asked` events it missed."""
        for question in (await self._connection.get_snapshot(tail=1)).pending_questions:
            self._on_event(SessionEventReceived(QuestionAsked(question)))
        await self._drain()

    async def _end_of_input(self) -> None:
        """stdin ended: a session run here finishes its run first, with nobody left to answer questions."""
        if self._in_server:
            return
        self._input_ended = True
        for question_id in tuple(self._pending):
            await self._connection.answer_question(question_id, None)
        await self._connection.wait_for_idle()
        await self._drain()

    def _on_event(self, event: ConnectionEvent) -> None:
        if isinstance(event, SessionEventReceived):
            if isinstance(event.event, QuestionAsked):
                if event.event.question.id in self._pending:
                    return  # announced already (`_announce_pending`)
                self._pending.add(event.event.question.id)
                if self._input_ended:
                    self._dismiss(event.event.question.id)
            elif isinstance(event.event, QuestionResolved):
                self._pending.discard(event.event.id)
            self._line(event_to_json(event.event))
        elif isinstance(event, Closed):
            print(f"error: {event.error or 'the connection to the session closed'}", file=sys.stderr)
            self._stop(1)
        elif isinstance(event, ConnectionStatus):
            log.info("%s%s", event.status, f": {event.error}" if event.error else "")
        elif isinstance(event, ClientNotice):
            log.info("%s", event.message)
        # `SessionReplaced` and `ClientSetEditorText`: the answer to the command that caused them says as much

    def _dismiss(self, question_id: str) -> None:
        task = asyncio.ensure_future(self._connection.answer_question(question_id, None))
        self._dismissing.add(task)
        task.add_done_callback(self._dismissing.discard)

    def _respond(self, response: RpcResponse) -> None:
        self._line(dump_json(response))

    def _line(self, text: str) -> None:
        if not self._gone:
            self._writer.write(text.encode() + b"\n")

    async def _drain(self) -> None:
        try:
            await self._writer.drain()
        except (BrokenPipeError, ConnectionResetError):  # the reader of stdout went away: stop
            self._gone = True


async def _serve(target: LocalTarget | ServerTarget) -> int:
    reader, writer = await protocol_streams()
    try:
        connection = await open_connection(target)
    except PrimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        return await RpcServer(connection, writer, in_server=isinstance(target, ServerTarget)).serve(reader)
    finally:
        await connection.dispose()
        try:
            await writer.drain()
            writer.close()
        except (BrokenPipeError, ConnectionResetError):
            pass


def serve(target: LocalTarget | ServerTarget) -> int:
    """Serve the session `target` names on stdin/stdout until stdin ends; the exit code."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="prime rpc: %(message)s")
    log.setLevel(logging.INFO)  # our own notes; a library's (every HTTP request of httpx) only when it warns
    return asyncio.run(_serve(target))
