"""Session events back from their JSON (`codec.py` writes them): the reading half of vocabulary (a).

`codec.event_to_wire` sends a streamed delta without the partial message it belongs to, so decoding is
stateful: an `EventDecoder` per event stream keeps the assistant message being streamed and applies
each delta to it, the way a provider does. Like the runtime's events, every decoded `message_update`
carries that same partial message object, mutated in place: copy it to keep a snapshot. A full
`message_update` (one that carries `message`) resets the partial to what the sender had.

Unknown event types decode to None (a newer server may send them; clients skip them).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

from pydantic import JsonValue, TypeAdapter
from pydantic.alias_generators import to_snake

from prime_jupyter.ai import events as ai_events
from prime_jupyter.ai.partial_json import PartialJson
from prime_jupyter.ai.types import AssistantMessage, TextContent, ThinkingContent, ToolCall
from prime_jupyter.protocol import events
from prime_jupyter.protocol.events import MessageEnd, MessageStart, MessageUpdate, SessionEvent

__all__ = ["EventDecoder"]

Wire = Mapping[str, JsonValue]


def _by_type(module: object, names: list[str]) -> dict[str, type]:
    """Event classes by event type."""
    classes: list[type] = [getattr(module, name) for name in names]
    return {_type_of(cls): cls for cls in classes if dataclasses.is_dataclass(cls)}


@functools.cache
def _adapter(cls: type) -> tuple[bool, TypeAdapter[Any]]:
    """The validator of one event class, built when that type is first decoded (building all of them
    costs more than a client's start-up should), with whether the event has a `partial` field."""
    return any(f.name == "partial" for f in dataclasses.fields(cls)), TypeAdapter(cls)


def _type_of(cls: Any) -> str:
    return next(str(f.default) for f in dataclasses.fields(cls) if f.name == "type")


_EVENTS = _by_type(events, [n for n in events.__all__ if n not in ("SessionEvent", "ToolOutput")])
_INNER = _by_type(ai_events, [n for n in ai_events.__all__ if n != "AssistantMessageEvent"])


def _snake(data: Wire) -> dict[str, JsonValue]:
    return {to_snake(key): value for key, value in data.items()}


class EventDecoder:
    """Decodes one event stream; keep one per stream (it holds the message being streamed)."""

    def __init__(self) -> None:
        self._partial: AssistantMessage | None = None
        self._arguments: dict[int, PartialJson] = {}

    def decode(self, data: Wire) -> SessionEvent | None:
        kind = data.get("type")
        if kind == "message_update":
            return self._update(data)
        found = _EVENTS.get(kind) if isinstance(kind, str) else None
        if found is None:
            return None
        event: SessionEvent = _adapter(found)[1].validate_python(_snake(data))
        if isinstance(event, MessageStart | MessageEnd):
            self._track(event)
        return event

    def _track(self, event: MessageStart | MessageEnd) -> None:
        if isinstance(event, MessageStart) and isinstance(event.message, AssistantMessage):
            self._partial, self._arguments = event.message, {}
        elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            self._partial, self._arguments = None, {}

    def _update(self, data: Wire) -> MessageUpdate | None:
        inner = data.get("assistantMessageEvent")
        if not isinstance(inner, Mapping):
            return None
        message = data.get("message")
        if message is not None:
            self._partial = AssistantMessage.model_validate(message)
        partial = self._partial or AssistantMessage(api="", provider="", model="")
        self._partial = partial
        decoded = self._inner(inner, partial)
        return MessageUpdate(partial, decoded) if decoded is not None else None

    def _inner(self, inner: Wire, partial: AssistantMessage) -> ai_events.AssistantMessageEvent | None:
        kind, index, delta = inner.get("type"), inner.get("contentIndex"), inner.get("delta")
        if isinstance(index, int) and (kind in ("text_start", "thinking_start", "toolcall_start") or delta is not None):
            self._apply(partial, str(kind), index, inner)
        found = _INNER.get(kind) if isinstance(kind, str) else None
        if found is None:
            return None
        has_partial, adapter = _adapter(found)
        values: dict[str, Any] = _snake(inner)
        if has_partial:
            values["partial"] = partial
        result: ai_events.AssistantMessageEvent = adapter.validate_python(values)
        return result

    def _apply(self, partial: AssistantMessage, kind: str, index: int, inner: Wire) -> None:
        """Grow the partial message the way the provider did."""
        content = partial.content
        if kind == "text_start" and index >= len(content):
            content.append(TextContent(text=""))
        elif kind == "thinking_start" and index >= len(content):
            content.append(ThinkingContent(thinking=""))
        elif kind == "toolcall_start" and index >= len(content):
            content.append(ToolCall(id=str(inner.get("id") or ""), name=str(inner.get("name") or "")))
            self._arguments[index] = PartialJson()
        delta = inner.get("delta")
        if not isinstance(delta, str) or index >= len(content):
            return
        block = content[index]
        if isinstance(block, TextContent):
            block.text += delta
        elif isinstance(block, ThinkingContent):
            block.thinking += delta
        else:
            block.arguments = self._arguments.setdefault(index, PartialJson()).feed(delta)
