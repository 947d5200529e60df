"""`start_run`: one prompt run in a session of a Jupyter server, in one request (`POST connection/run`,
capability `run`): what `jupyter prime attach -p` does.

The long way (`HttpAgentConnection`: `GET info`, `attach`, `command prompt`, `events`, `wait`) is five
requests and needs httpx and pydantic, about 200 ms of imports for a command whose launch budget is
75 ms. This module imports only the standard library (`_plain_http`), sends one request (a second one
only to abort), and hands each session event over as the JSON text the server encoded it in
(`codec.event_to_json`, the same text `jupyter prime --mode json` prints in process), without decoding
it into models. It is no `AgentConnection`: it runs one prompt and nothing else, over the same
protocol (`protocol.connection_routes.RunRequest`, `RunOutbound`) and with the same error messages
(`_endpoint.refusal`). It blocks (no event loop: importing asyncio alone is 25 ms of the budget).

`start_run` answers None when the server lacks the route (an older prime-jupyter answers Jupyter's own
404), and before sending anything when the environment names an HTTP proxy for the server: the caller
then goes the long way (httpx, which checks versions and capabilities first and honours the proxy).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from itertools import chain
from typing import TYPE_CHECKING

from prime_jupyter._sse import SseDecoder
from prime_jupyter.connection._endpoint import ServerEndpoint, error_reason, refusal
from prime_jupyter.connection._plain_http import PlainResponse, plain_request, proxied, request_path
from prime_jupyter.connection.door import ServerTarget, _endpoint, _model
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.paths import CONNECTION_PATH, RUN_PATH, SESSION_EVENT_PREFIX
from prime_jupyter.protocol.version import PROTOCOL_VERSION, SCHEMA_REVISION

if TYPE_CHECKING:
    from prime_jupyter.ai.types import ImageContent

__all__ = ["RemoteRun", "event_type", "start_run"]

_STREAM_IDLE_TIMEOUT_S = 90.0
"""Longer than the server's heartbeat (15 s by default): silence that long means the server is gone."""
_COMMAND_TIMEOUT_S = 30.0


def event_type(text: str) -> str | None:
    """The `type` of an event's JSON text (the encoder writes it first; parsed when it does not)."""
    if text.startswith('{"type":"'):
        end = text.find('"', 9)
        if end > 0:
            return text[9:end]
    data = json.loads(text)
    kind = data.get("type") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


class RemoteRun:
    """A run going on in a server, and the stream of its events (`batches`). Made by `start_run`, once
    the server said which session the run is in (`run_started`)."""

    def __init__(self, endpoint: ServerEndpoint, response: PlainResponse) -> None:
        self.endpoint = endpoint
        self.session_id = ""
        self.header: dict[str, object] = {}
        """The session's transcript header, as JSON data."""
        self.capabilities: list[str] = []
        self._response = response
        self._pieces = response.pieces()
        self._decoder = SseDecoder()
        self._pending: list[str] = []
        self._ended = False

    def batches(self) -> Iterator[list[str]]:
        """The run's session events as they arrive, each as its JSON text, grouped as the server sent
        them; ends after the run's last event. Raises `PrimeError` when the stream ends before the run
        did (the session was deleted, the server stopped, this client fell too far behind)."""
        try:
            yield from self._batches()
        except OSError as exc:
            raise self._lost(str(exc) or type(exc).__name__) from exc
        finally:
            self.close()
        if not self._ended:
            raise self._lost("the event stream ended")

    def abort(self) -> None:
        """Stop the run (on a connection of its own); its last events still come through `batches`."""
        body = {"sessionId": self.session_id, "command": {"type": "abort"}}
        response = _post(self.endpoint, CONNECTION_PATH + "command", body, _COMMAND_TIMEOUT_S)
        try:
            content = response.read()
        finally:
            response.close()
        if response.status != 200:
            raise refusal(response.status, _where(self.endpoint, CONNECTION_PATH + "command"), content)

    def close(self) -> None:
        self._response.close()

    def _read_started(self) -> None:
        """Read up to `run_started`; what came with it waits for `batches`."""
        while not self._pending:
            piece = next(self._pieces, None)
            if piece is None:
                raise PrimeError(f"the Jupyter server at {self.endpoint.display} ended the run's stream at once")
            self._pending = self._messages(piece)
        first = json.loads(self._pending.pop(0))
        if not isinstance(first, dict) or first.get("type") != "run_started":
            raise PrimeError(f"the Jupyter server at {self.endpoint.display} did not start the run")
        self.session_id = str(first["sessionId"])
        self.header = dict(first.get("header") or {})
        self.capabilities = [str(name) for name in first.get("capabilities") or []]

    def _batches(self) -> Iterator[list[str]]:
        pending, self._pending = self._pending, []
        for messages in chain([pending], map(self._messages, self._pieces)):
            events = [event for data in messages if (event := self._event(data)) is not None]
            if events:
                yield events
            if self._ended:
                return

    def _messages(self, piece: bytes) -> list[str]:
        """The data of every SSE message completed by `piece` (comments and ids dropped)."""
        return [message.data for message in self._decoder.feed(piece)]

    def _event(self, data: str) -> str | None:
        if data.startswith(SESSION_EVENT_PREFIX) and data.endswith("}"):
            return data[len(SESSION_EVENT_PREFIX) : -1]
        message = json.loads(data)
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "run_ended":
            self._ended = True
        elif kind == "resync-required":
            raise self._lost("this client fell too far behind the run's events")
        elif kind == "session_event" and isinstance(message.get("event"), dict):
            return json.dumps(message["event"], ensure_ascii=False, separators=(",", ":"))
        return None  # a message type a newer server added

    def _lost(self, why: str) -> PrimeError:
        return PrimeError(
            f"lost the run in session {self.session_id} at {self.endpoint.display} ({why}); "
            f"it may still be going: jupyter prime attach --session {self.session_id}"
        )


def start_run(target: ServerTarget, text: str, images: list[ImageContent] | None = None) -> RemoteRun | None:
    """Start `text` as a prompt in the session `target` names (a new one by default); None when the
    server has no `run` route (an older version). Raises `PrimeError`s a user can act on."""
    endpoint, serves_cwd = _endpoint(target)
    if proxied(endpoint):
        return None  # httpx goes through the proxy the environment names; this client does not
    model, thinking = _model(target.model)
    body: dict[str, object] = {
        "sessionId": target.session,
        "cwd": target.new_session_cwd or (str(target.cwd) if serves_cwd else None),
        "model": {"provider": model.provider, "id": model.id} if model is not None else None,
        "thinkingLevel": thinking,
        "permissionMode": target.permission_mode,
        "message": text,
        "images": [{"type": "image", "data": i.data, "mimeType": i.mime_type} for i in images or []],
        "clientProtocolVersion": PROTOCOL_VERSION,
        "clientSchemaRevision": SCHEMA_REVISION,
    }
    response = _post(endpoint, RUN_PATH, {k: v for k, v in body.items() if v is not None}, _STREAM_IDLE_TIMEOUT_S)
    try:
        return _started(endpoint, response)
    except BaseException:
        response.close()
        raise


def _started(endpoint: ServerEndpoint, response: PlainResponse) -> RemoteRun | None:
    if response.status != 200:
        content = response.read()
        response.close()
        if response.status == 404 and error_reason(content) is None:
            return None  # Jupyter's own 404: a server without the route
        raise refusal(response.status, _where(endpoint, RUN_PATH), content)
    run = RemoteRun(endpoint, response)
    try:
        run._read_started()
    except OSError as exc:
        raise PrimeError(f"the Jupyter server at {endpoint.display} broke off the run's stream: {exc}") from exc
    return run


def _where(endpoint: ServerEndpoint, path: str) -> str:
    """The server and the path asked, as `HttpTransport.error` names them."""
    return endpoint.display + request_path(endpoint, path)


def _post(endpoint: ServerEndpoint, path: str, body: Mapping[str, object], timeout_s: float) -> PlainResponse:
    return plain_request(endpoint, "POST", path, json.dumps(body).encode(), timeout_s)
