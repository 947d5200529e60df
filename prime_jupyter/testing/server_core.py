"""The scripted LLM server's asyncio core: one FIFO of turns served to whichever API asks next.

`ScriptedServerCore` runs on the caller's event loop (the CLI); `ScriptedLLMServer` wraps it in a
background thread for tests. Routes (with or without the `/v1` prefix): `POST /messages`,
`POST /chat/completions`, `POST /responses`, `GET /models`, and the cloud platforms' (`wire_cloud`: Bedrock,
Vertex AI, Azure); control routes `POST /_scripted/turns` (enqueue `{"turns": [...]}`), `GET /_scripted/requests`
(the records) and `POST /_scripted/oauth2/token` (tokens for Google's credential chain) are not recorded.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable, Iterable

from pydantic import JsonValue, ValidationError

from prime_jupyter.testing.http11 import (
    LAST_CHUNK,
    MAX_HEAD,
    BadRequest,
    HttpRequest,
    chunk,
    head,
    read_request,
)
from prime_jupyter.testing.records import Outcome, RecordedApi, RecordedRequest, Stamp
from prime_jupyter.testing.script import (
    ContextOverflow,
    CutStream,
    HttpError,
    JsonAnswer,
    RejectField,
    Script,
    ScriptedTurn,
    StreamError,
)
from prime_jupyter.testing.wire_anthropic import AnthropicWire
from prime_jupyter.testing.wire_cloud import cloud_route, token_reply
from prime_jupyter.testing.wire_common import WireContext, WireFormat, dumps
from prime_jupyter.testing.wire_openai_chat import OpenAIChatWire, openai_error_body
from prime_jupyter.testing.wire_openai_responses import OpenAIResponsesWire

__all__ = ["ScriptedServerCore"]

_WIRES: dict[str, WireFormat] = {
    "/messages": AnthropicWire(),
    "/chat/completions": OpenAIChatWire(),
    "/responses": OpenAIResponsesWire(),
}
_MODEL = {
    "id": "scripted-model",
    "object": "model",
    "type": "model",
    "created": 0,
    "created_at": "2025-01-01T00:00:00Z",
    "owned_by": "scripted",
    "display_name": "Scripted model",
}
_MODELS = {
    "object": "list",
    "data": [_MODEL],
    "has_more": False,
    "first_id": "scripted-model",
    "last_id": "scripted-model",
}


def _route(path: str) -> str:
    path = path.partition("?")[0].rstrip("/") or "/"
    return path[3:] if path.startswith("/v1/") else path


def _parse_json(body: bytes) -> JsonValue:
    try:
        value: JsonValue = json.loads(body) if body else None
    except ValueError:
        return None
    return value


def _include_usage(body: dict[str, JsonValue]) -> bool:
    options = body.get("stream_options")
    return isinstance(options, dict) and options.get("include_usage") is True


class ScriptedServerCore:
    """Serves scripted turns over HTTP/1.1 keep-alive connections on the running event loop.

    Contract: a client that disconnects, cuts a request short or sends garbage never raises out of
    the server and never logs a traceback; its record gets the outcome `client_disconnected`.
    """

    def __init__(
        self,
        turns: Iterable[ScriptedTurn] = (),
        on_record: Callable[[RecordedRequest], None] | None = None,
        on_stream_write: Callable[[bytes], None] | None = None,
    ) -> None:
        """`on_stream_write` sees the bytes of every streamed chunk right before they are written (a
        benchmark stamps "the provider writes a delta" there)."""
        self.requests: list[RecordedRequest] = []
        self.tokens_issued = 0
        """Access tokens `POST /_scripted/oauth2/token` handed out (Google's credential chain asks it)."""
        self.base_url = ""
        self._turns: deque[ScriptedTurn] = deque(turns)
        self._on_record = on_record
        self._on_stream_write = on_stream_write or (lambda data: None)
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.StreamWriter, asyncio.Task[None]] = {}
        self._accepted = 0
        self._closing = False

    @property
    def pending(self) -> int:
        """How many turns are still queued."""
        return len(self._turns)

    def enqueue(self, *turns: ScriptedTurn) -> None:
        """Append turns to the FIFO (thread-safe: a deque append)."""
        self._turns.extend(turns)

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Listen and return the base URL, e.g. `http://127.0.0.1:41234`."""
        self._server = await asyncio.start_server(self._connection, host, port, limit=MAX_HEAD)
        bound_port = self._server.sockets[0].getsockname()[1]
        self.base_url = f"http://{host}:{bound_port}"
        return self.base_url

    async def close(self) -> None:
        """Stop listening and drop every open connection."""
        self._closing = True
        if self._server is not None:
            self._server.close()
        tasks = list(self._connections.values())
        for writer, task in list(self._connections.items()):
            writer.transport.abort()
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # A zero high-water mark makes drain() wait until the kernel has every byte, so finished_at
        # means "written" and an abort after drain() cannot lose data meant to arrive before the cut.
        writer.transport.set_write_buffer_limits(0)
        self._accepted += 1
        number = self._accepted
        task = asyncio.current_task()
        if task is not None:
            self._connections[writer] = task
        try:
            while (request := await read_request(reader)) is not None:
                if not await self._answer(request, writer, number) or not request.keep_alive:
                    break
        except (BadRequest, ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass  # the client went away or sent garbage: that is the client's problem
        except asyncio.CancelledError:
            # Python 3.11's start_server logs a traceback for a handler task that ends cancelled;
            # close() cancels on purpose, so end quietly then.
            if not self._closing:
                raise
        finally:
            self._connections.pop(writer, None)
            writer.close()

    async def _answer(self, request: HttpRequest, writer: asyncio.StreamWriter, connection: int) -> bool:
        path = _route(request.path)
        if path.startswith("/_scripted/"):
            return await self._control(request, path, writer)
        wire = _WIRES.get(path)
        cloud = cloud_route(path) if wire is None else None
        if cloud is not None:
            wire = cloud.wire
        body = _parse_json(request.body)
        record = RecordedRequest(
            number=len(self.requests) + 1,
            api=self._api_name(request, path, wire),
            method=request.method,
            path=request.target,
            headers=request.headers,
            body=body,
            stream=cloud is not None or (isinstance(body, dict) and body.get("stream") is True),
            received_at=Stamp.now(),
            connection=connection,
        )
        self.requests.append(record)
        try:
            return await self._respond(request, record, wire, writer, cloud.model if cloud is not None else None)
        finally:
            record.finished_at = Stamp.now()
            if record.outcome is None:
                record.outcome = "client_disconnected"
            if self._on_record is not None:
                self._on_record(record)

    @staticmethod
    def _api_name(request: HttpRequest, path: str, wire: WireFormat | None) -> RecordedApi:
        if wire is not None and request.method == "POST":
            return wire.api
        return "models" if path == "/models" and request.method == "GET" else "unknown"

    async def _respond(
        self,
        request: HttpRequest,
        record: RecordedRequest,
        wire: WireFormat | None,
        writer: asyncio.StreamWriter,
        path_model: str | None = None,
    ) -> bool:
        if record.api == "models":
            return await self._send(writer, record, 200, dumps(_MODELS).encode(), "completed")
        if wire is None or record.api == "unknown":
            message = f"scripted server: no route for {request.method} {request.path}"
            return await self._send(writer, record, 404, openai_error_body(404, message), "bad_request")
        if not isinstance(record.body, dict):
            error = wire.error_body(400, "scripted server: request body is not a JSON object")
            return await self._send(writer, record, 400, error, "bad_request")
        if not self._turns:
            error = wire.error_body(500, f"scripted server: no turn left for request {record.number}")
            return await self._send(writer, record, 500, error, "no_turn", {"x-should-retry": "false"})
        rejected = _rejected_field(self._turns[0], record.body)
        if rejected is not None:  # the turn stays queued for the request that leaves the field out
            error = wire.error_body(400, f"Unrecognized request argument supplied: {rejected}")
            return await self._send(writer, record, 400, error, "http_error")
        turn = self._turns.popleft()
        if turn.first_byte_delay_s:
            await asyncio.sleep(turn.first_byte_delay_s)
        fault = turn.fault
        if isinstance(fault, HttpError):
            extra = {} if fault.retry_after is None else {"retry-after": f"{fault.retry_after:g}"}
            return await self._send(
                writer, record, fault.status, wire.error_body(fault.status, fault.message), "http_error", extra
            )
        if isinstance(fault, ContextOverflow):
            return await self._send(writer, record, 400, wire.context_overflow_body(fault), "http_error")
        if isinstance(fault, JsonAnswer):
            return await self._send(writer, record, 200, fault.body.encode(), "completed")
        model = path_model or record.body.get("model")
        ctx = WireContext(
            model=model if isinstance(model, str) else "scripted-model",
            request_number=record.number,
            include_usage=_include_usage(record.body),
        )
        if record.stream:
            return await self._stream(writer, record, wire, turn, ctx)
        if isinstance(fault, StreamError):
            return await self._send(writer, record, 500, wire.error_body(500, fault.message), "stream_error")
        body = wire.response_body(turn, ctx)
        if isinstance(fault, CutStream):
            writer.write(head(200, self._headers(record, "application/json", len(body))) + body[: len(body) // 2])
            return await self._cut(writer, record)
        return await self._send(writer, record, 200, body, "completed")

    async def _stream(
        self,
        writer: asyncio.StreamWriter,
        record: RecordedRequest,
        wire: WireFormat,
        turn: ScriptedTurn,
        ctx: WireContext,
    ) -> bool:
        events = wire.stream_events(turn, ctx)
        fault = turn.fault
        if isinstance(fault, CutStream):
            events = events[: fault.after_events]
        elif isinstance(fault, StreamError):
            events = [*events[: fault.after_events], wire.stream_error(fault, ctx, fault.after_events)]
        headers = self._headers(record, getattr(wire, "content_type", "text/event-stream; charset=utf-8"), None)
        writer.write(head(200, {**headers, "cache-control": "no-cache", "transfer-encoding": "chunked"}))
        record.status = 200
        await writer.drain()
        if turn.first_event_delay_s:
            await asyncio.sleep(turn.first_event_delay_s)
        if turn.chunk_delay_s == 0:
            if events:
                self._on_stream_write(data := b"".join(events))
                writer.write(chunk(data))
        else:
            for index, event in enumerate(events):
                if index:
                    await asyncio.sleep(turn.chunk_delay_s)
                self._on_stream_write(event)
                writer.write(chunk(event))
                await writer.drain()
        if isinstance(fault, CutStream):
            return await self._cut(writer, record)
        if turn.last_chunk_delay_s:
            await writer.drain()
            await asyncio.sleep(turn.last_chunk_delay_s)
        writer.write(LAST_CHUNK)
        await writer.drain()
        record.outcome = "stream_error" if isinstance(fault, StreamError) else "completed"
        return True

    @staticmethod
    async def _cut(writer: asyncio.StreamWriter, record: RecordedRequest) -> bool:
        await writer.drain()
        writer.transport.abort()
        record.status = 200
        record.outcome = "cut"
        return False

    @staticmethod
    def _headers(record: RecordedRequest, content_type: str, length: int | None) -> dict[str, str]:
        request_id = f"req_scripted_{record.number:04d}"
        headers = {"content-type": content_type, "request-id": request_id, "x-request-id": request_id}
        if length is not None:
            headers["content-length"] = str(length)
        return headers

    async def _send(
        self,
        writer: asyncio.StreamWriter,
        record: RecordedRequest | None,
        status: int,
        body: bytes,
        outcome: Outcome,
        extra: dict[str, str] | None = None,
    ) -> bool:
        headers = {"content-type": "application/json", "content-length": str(len(body)), **(extra or {})}
        if record is not None:
            headers.update(self._headers(record, "application/json", len(body)))
            record.status = status
        writer.write(head(status, headers) + body)
        await writer.drain()
        if record is not None:
            record.outcome = outcome
        return True

    async def _control(self, request: HttpRequest, path: str, writer: asyncio.StreamWriter) -> bool:
        if request.method == "POST" and path == "/_scripted/turns":
            try:
                script = Script.model_validate_json(request.body)
            except ValidationError as exc:
                return await self._send(writer, None, 400, dumps({"error": str(exc)}).encode(), "bad_request")
            self.enqueue(*script.turns)
            reply = {"queued": len(script.turns), "pending": self.pending}
            return await self._send(writer, None, 200, dumps(reply).encode(), "completed")
        if request.method == "POST" and path == "/_scripted/oauth2/token":
            self.tokens_issued += 1
            return await self._send(writer, None, 200, token_reply(self.tokens_issued), "completed")
        if request.method == "GET" and path == "/_scripted/requests":
            records = [r.model_dump(mode="json") for r in self.requests]
            return await self._send(writer, None, 200, dumps(records).encode(), "completed")
        return await self._send(writer, None, 404, dumps({"error": "unknown control route"}).encode(), "bad_request")


def _rejected_field(turn: ScriptedTurn, body: object) -> str | None:
    """The field a `RejectField` turn refuses, when this request body carries it."""
    fault = turn.fault
    if isinstance(fault, RejectField) and isinstance(body, dict) and fault.field in body:
        return fault.field
    return None
