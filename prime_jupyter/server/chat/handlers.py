"""The chat routes that drive a session: new, chat (NDJSON), events (SSE), session, question, abort."""

from __future__ import annotations

import base64
import binascii

from jupyter_server.auth.decorator import authorized
from tornado import web

from prime_jupyter.ai.types import ImageContent
from prime_jupyter.protocol.frames import ConnectedFrame, ResyncRequiredFrame
from prime_jupyter.protocol.requests import (
    ChatNewRequest,
    ChatNewResponse,
    ChatRequest,
    ImageInput,
    ModelRef,
    OkResponse,
    QuestionAnswerRequest,
    SessionRequest,
)
from prime_jupyter.protocol.version import CAPABILITIES, PROTOCOL_VERSION, SCHEMA_REVISION
from prime_jupyter.protocol.wire import dump_json
from prime_jupyter.server.chat.turn import TurnStream
from prime_jupyter.server.chat.views import chat_messages, snapshot
from prime_jupyter.server.host.live import LiveSession
from prime_jupyter.server.host.ring import RingEntry, unsequenced
from prime_jupyter.server.host.summaries import live_summary
from prime_jupyter.server.http.base import ApiError, PrimeHandler, level_of
from prime_jupyter.server.http.feeds import Feed
from prime_jupyter.server.http.streaming import NDJSON, SSE, begin_stream, end_stream, pump_ndjson, pump_sse

__all__ = [
    "ChatAbortHandler",
    "ChatEventsHandler",
    "ChatHandler",
    "ChatNewHandler",
    "ChatQuestionHandler",
    "ChatSessionHandler",
]

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


class ChatNewHandler(PrimeHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parse(ChatNewRequest)
        level_of(request.thinking_level)
        live = await self.bridge.create(request, self.request_cwd(request.cwd))
        model = live.session.model
        self.reply(
            ChatNewResponse(
                session=live_summary(live),
                messages=await chat_messages(live),
                model=ModelRef(provider=model.provider, id=model.id),
                thinking_level=live.session.thinking_level,
            )
        )


class ChatHandler(PrimeHandler):
    """`POST chat`: the NDJSON stream of the run the message starts (or joins)."""

    _turn: TurnStream | None = None

    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parse(ChatRequest)
        images = [_image(image, i) for i, image in enumerate(request.images)]
        if not request.message.strip() and not images:
            raise ApiError(400, "message: empty")
        level = level_of(request.thinking_level)
        live = await self.bridge.get(request.session_id)
        begin_stream(self, NDJSON)
        self._turn = turn = TurnStream(live)
        try:
            if request.model is not None:
                await self.bridge.set_model(live, request.model, level)
            elif level is not None:
                await live.connection.set_thinking_level(level)
            await turn.start(request.message, images, request.streaming_behavior)
        except Exception as exc:
            turn.fail(exc)
        if not await pump_ndjson(self, turn.feed):
            turn.detach()
        end_stream(self, NDJSON)

    def on_connection_close(self) -> None:
        if self._turn is not None:
            self._turn.detach()


def _image(image: ImageInput, index: int) -> ImageContent:
    if image.mime_type not in IMAGE_TYPES:
        raise ApiError(400, f"images.{index}.mimeType: use one of {', '.join(sorted(IMAGE_TYPES))}")
    try:
        base64.b64decode(image.data, validate=True)
    except (binascii.Error, ValueError):
        raise ApiError(400, f"images.{index}.data: not base64") from None
    return ImageContent(data=image.data, mime_type=image.mime_type)


class ChatEventsHandler(PrimeHandler):
    """`GET chat/events`: every frame of the session as SSE, each with `id: <seq>`.

    First `connected{cursor}` (no id). With a cursor (`Last-Event-ID`, else `lastEventId`) the retained
    frames after it are replayed first; a cursor the ring cannot serve gets `resync-required` instead,
    and frames go on live: the client refetches `chat/session` and skips frames up to its `cursor`.
    Without a cursor only new frames come (a client starts from `chat/session`, which gives the
    cursor). A client that falls a whole ring behind gets `resync-required` the same way. An idle
    stream carries `: heartbeat` comments."""

    _feed: Feed[RingEntry] | None = None

    @web.authenticated
    @authorized
    async def get(self) -> None:
        live = await self.bridge.get(self.query_session_id())
        begin_stream(self, SSE)
        self._feed = feed = _event_feed(live, self._cursor())
        stop = live.listen(lambda entry: feed.put(entry) if entry is not None else feed.close())
        try:
            await pump_sse(self, feed, self.bridge.config.heartbeat_interval_s)
        finally:
            stop()
        end_stream(self, SSE)

    def _cursor(self) -> int | None:
        """`Last-Event-ID` (what EventSource resends), else `lastEventId`; None when neither is a number."""
        raw = self.request.headers.get("Last-Event-ID") or self.get_query_argument("lastEventId", None)
        try:
            return max(0, int(raw)) if raw is not None else None
        except ValueError:
            return None

    def on_connection_close(self) -> None:
        if self._feed is not None:
            self._feed.close()


RECONNECT_MS = 1000
"""What `connected` tells a browser to wait before it reconnects (SSE `retry:`); Chromium's own default is
3 s. A reconnect after a server restart is then prompt once the server is back (issue 15)."""


def _event_feed(live: LiveSession, cursor: int | None) -> Feed[RingEntry]:
    """A feed that starts with `connected` and the replay after `cursor` (none without a cursor)."""

    def resync() -> RingEntry:
        return unsequenced(ResyncRequiredFrame(reason="cursor-expired"))

    feed: Feed[RingEntry] = Feed(
        limit=live.ring.capacity + 2, overflow=resync
    )  # room for `connected` and a full replay
    connected = ConnectedFrame(
        session_id=live.session_id,
        protocol_version=PROTOCOL_VERSION,
        schema_revision=SCHEMA_REVISION,
        capabilities=list(CAPABILITIES),
        cursor=live.ring.last_seq,
    )
    feed.put(RingEntry(None, connected, dump_json(connected), retry_ms=RECONNECT_MS))
    replay = live.ring.since(cursor) if cursor is not None else []
    for entry in replay if replay is not None else [resync()]:
        feed.put(entry)
    return feed


class ChatSessionHandler(PrimeHandler):
    """`GET chat/session`: the session hydrated losslessly, with the SSE cursor it is current as of."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.reply(snapshot(await self.bridge.get(self.query_session_id())))


class ChatQuestionHandler(PrimeHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parse(QuestionAnswerRequest)
        live = await self.bridge.get(request.session_id)
        try:
            answered = await live.connection.answer_question(request.question_id, request.answer)
        except ValueError as exc:
            raise ApiError(400, f"answer: {exc}") from None
        if not answered:
            raise ApiError(404, f"question {request.question_id} is no longer pending", "not-found")
        self.reply(OkResponse(session_id=request.session_id))


class ChatAbortHandler(PrimeHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parse(SessionRequest)
        live = await self.bridge.get(request.session_id)
        await live.connection.abort()
        self.reply(OkResponse(session_id=request.session_id))
