"""`stream()`: one entry point for every provider, returning an `AssistantMessageEventStream`.

A provider is a coroutine that drives an `Emitter`; it runs as its own task, so an abort can cancel
it wherever it waits (connecting, a slow first byte, between chunks) and its connection is closed by
the cancellation. Whatever happens, the consumer sees `start` (once the response began) and exactly
one terminal `done` or `error`: failures are events, never exceptions (design.md D2).

A consumer that passes `on_event` gets every event before the terminal one through that callback, in
the provider's own call, and iterates only the terminal event: each delta then reaches the agent's
listeners (a client's socket in the server) in the same pass of the event loop that read it from the
network, instead of one pass later through the queue.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeAlias

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.errors import ProviderHints, classify_exception, explain
from prime_jupyter.ai.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from prime_jupyter.ai.models import Model, ThinkingLevel
from prime_jupyter.ai.partial_json import PartialJson
from prime_jupyter.ai.providers._client import close_clients
from prime_jupyter.ai.types import AssistantMessage, Context, TextContent, ThinkingContent, ToolCall
from prime_jupyter.ai.usage import apply_cost

__all__ = [
    "AssistantMessageEventStream",
    "Emitter",
    "StreamOptions",
    "close_http_clients",
    "stream",
]

log = logging.getLogger(__name__)


@dataclass
class StreamOptions:
    api_key: str
    base_url: str | None = None
    thinking: ThinkingLevel = "off"
    max_tokens: int | None = None
    temperature: float | None = None
    signal: AbortSignal | None = None
    session_id: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    timeout_s: float = 600.0
    """Seconds to wait for the answer's head, and for each next piece of it (a model may think long)."""
    connect_timeout_s: float | None = None
    """Seconds to wait for a connection; None: `PRIME_CONNECT_TIMEOUT_S`, else 10 (`providers._client`)."""
    hints: ProviderHints | None = None
    """Where the key came from and the provider's known models, for a refused key's or an unknown
    model's error message (`errors.explain`)."""


Provider: TypeAlias = Callable[[Model, Context, StreamOptions, "Emitter"], Awaitable[None]]

_PROVIDERS = {
    "anthropic-messages": "prime_jupyter.ai.providers.anthropic",
    "openai-completions": "prime_jupyter.ai.providers.openai_completions",
    "openai-responses": "prime_jupyter.ai.providers.openai_responses",
}


_CLOUD = "prime_jupyter.ai.providers.cloud"
"""Models on Bedrock, Vertex AI and Azure: the same APIs, sent through the SDKs' own clients."""


class Emitter:
    """Builds the partial message and queues events. Providers call these in wire order."""

    def __init__(self, model: Model, put: Callable[[AssistantMessageEvent], None]) -> None:
        self.model = model
        self.message = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        self._put = put
        self._json: dict[int, PartialJson] = {}
        self.started = False
        self.finished = False
        self._holding = False
        self._held = False

    @contextmanager
    def done_after(self) -> Iterator[None]:
        """Hold a `done()` until the block ends. Providers read the response to its end inside it, so the
        connection is back in the pool before the caller, told the answer is done, sends its next request
        (which otherwise raced the drain and opened a second connection)."""
        self._holding = True
        try:
            yield
        finally:
            self._holding = False
            if self._held:
                self._held = False
                self.done()

    def start(self) -> None:
        if not self.started:
            self.started = True
            self._put(StartEvent(self.message))

    def text_start(self) -> int:
        self.message.content.append(TextContent(text=""))
        index = len(self.message.content) - 1
        self._put(TextStartEvent(index, self.message))
        return index

    def text_delta(self, index: int, delta: str) -> None:
        block = self.message.content[index]
        assert isinstance(block, TextContent)
        block.text += delta
        self._put(TextDeltaEvent(index, delta, self.message))

    def text_end(self, index: int, signature: str | None = None) -> None:
        block = self.message.content[index]
        assert isinstance(block, TextContent)
        block.text_signature = signature
        self._put(TextEndEvent(index, block.text, self.message))

    def thinking_start(self) -> int:
        self.message.content.append(ThinkingContent(thinking=""))
        index = len(self.message.content) - 1
        self._put(ThinkingStartEvent(index, self.message))
        return index

    def thinking_delta(self, index: int, delta: str) -> None:
        block = self.message.content[index]
        assert isinstance(block, ThinkingContent)
        block.thinking += delta
        self._put(ThinkingDeltaEvent(index, delta, self.message))

    def thinking_end(self, index: int, signature: str | None = None, redacted: bool = False) -> None:
        block = self.message.content[index]
        assert isinstance(block, ThinkingContent)
        if signature:
            block.thinking_signature = signature
        block.redacted = redacted
        self._put(ThinkingEndEvent(index, block.thinking, self.message))

    def toolcall_start(self, call_id: str, name: str) -> int:
        self.message.content.append(ToolCall(id=call_id, name=name))
        index = len(self.message.content) - 1
        self._json[index] = PartialJson()
        self._put(ToolCallStartEvent(index, self.message))
        return index

    def toolcall_delta(self, index: int, delta: str) -> None:
        block = self.message.content[index]
        assert isinstance(block, ToolCall)
        block.arguments = self._json[index].feed(delta)
        self._put(ToolCallDeltaEvent(index, delta, self.message))

    def toolcall_end(self, index: int) -> None:
        block = self.message.content[index]
        assert isinstance(block, ToolCall)
        parser = self._json.pop(index, None)
        if parser is not None:
            block.arguments = parser.final()
        self._put(ToolCallEndEvent(index, block, self.message))

    def done(self) -> None:
        if self.finished:
            return
        if self._holding:
            self._held = True
            return
        self.finished = True
        self._close_open_blocks()
        apply_cost(self.model, self.message.usage)
        stop = self.message.stop_reason
        reason = stop if stop in ("stop", "length", "toolUse") else "stop"
        if reason == "stop" and self.message.tool_calls():
            reason = "toolUse"
        self.message.stop_reason = reason
        self._put(DoneEvent(reason, self.message))

    def fail(
        self,
        reason: str,
        message: str,
        *,
        retryable: bool = False,
        retry_after_s: float | None = None,
        context_overflow: bool = False,
    ) -> None:
        if self.finished:
            return
        self.finished = True
        aborted = reason == "aborted"
        self._close_open_blocks()
        apply_cost(self.model, self.message.usage)
        self.message.stop_reason = "aborted" if aborted else "error"
        self.message.error_message = message
        self._put(
            ErrorEvent(
                "aborted" if aborted else "error",
                self.message,
                retryable=retryable and not aborted,
                retry_after_s=retry_after_s,
                context_overflow=context_overflow,
            )
        )

    def _close_open_blocks(self) -> None:
        for index in list(self._json):
            self.toolcall_end(index)


class AssistantMessageEventStream:
    """Async-iterable events of one response; `result()` gives the final message."""

    def __init__(
        self,
        model: Model,
        context: Context,
        options: StreamOptions,
        provider: Provider,
        on_event: Callable[[AssistantMessageEvent], None] | None = None,
    ) -> None:
        self._queue: asyncio.Queue[AssistantMessageEvent] = asyncio.Queue()
        self._on_event = on_event
        self._emit = Emitter(model, self._queue.put_nowait if on_event is None else self._deliver)
        self._signal = options.signal
        self._task = asyncio.ensure_future(self._run(provider, model, context, options))
        self._task.add_done_callback(self._settled)
        self._unsubscribe = options.signal.add_callback(self._abort) if options.signal else None
        self._final: AssistantMessage | None = None

    async def _run(self, provider: Provider, model: Model, context: Context, options: StreamOptions) -> None:
        try:
            await provider(model, context, options, self._emit)
            if not self._emit.finished:
                self._emit.fail("error", "the provider's stream ended without a stop reason", retryable=True)
        except asyncio.CancelledError:
            self._emit.fail("aborted", "aborted by the user")
        except Exception as exc:
            failure = explain(classify_exception(exc), model.provider, model.id, options.hints)
            self._emit.fail(
                "error",
                failure.message,
                retryable=failure.retryable,
                retry_after_s=failure.retry_after_s,
                context_overflow=failure.context_overflow,
            )

    def _deliver(self, event: AssistantMessageEvent) -> None:
        if event.type in ("done", "error"):
            self._queue.put_nowait(event)
            return
        assert self._on_event is not None
        try:
            self._on_event(event)
        except Exception:  # a consumer's bug must not pass for a provider failure
            log.exception("an assistant-message event listener failed")

    def _abort(self) -> None:
        if not self._task.done():
            self._task.cancel()

    def _settled(self, task: asyncio.Future[None]) -> None:
        """A task cancelled before its first step never ran `_run`'s handlers: the stream still ends."""
        if task.cancelled():
            self._emit.fail("aborted", "aborted by the user")

    def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[AssistantMessageEvent]:
        queue = self._queue
        try:
            while True:
                event = queue.get_nowait() if not queue.empty() else await queue.get()
                yield event
                if event.type == "done":
                    self._final = event.message
                    return
                if event.type == "error":
                    self._final = event.error
                    return
        finally:
            if self._unsubscribe:
                self._unsubscribe()
            if self._final is None and not self._task.done():
                self._task.cancel()  # the consumer stopped early: close the stream
            # after done/error the provider may still be reading the response's tail so the HTTP
            # connection goes back to the pool; let it finish.

    async def result(self) -> AssistantMessage:
        if self._final is None:
            async for _ in self:
                pass
        assert self._final is not None
        return self._final


def stream(
    model: Model,
    context: Context,
    options: StreamOptions,
    on_event: Callable[[AssistantMessageEvent], None] | None = None,
) -> AssistantMessageEventStream:
    """Start streaming one assistant response. Must be called inside a running event loop. With
    `on_event`, the events before the terminal one go to it and the stream yields only the terminal one."""
    if options.base_url is None and model.base_url:
        options.base_url = model.base_url
    module = importlib.import_module(_CLOUD if model.cloud is not None else _PROVIDERS[model.api])
    provider: Provider = module.stream_provider
    return AssistantMessageEventStream(model, context, options, provider, on_event)


async def close_http_clients() -> None:
    """Close the providers' kept-alive connections of the running event loop: what a host does when the
    last session of that loop is gone."""
    await close_clients()
