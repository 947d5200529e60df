"""JSON forms of session events, shared by `--mode json`, the connection routes and the event mapper.

Keys are camelCase. A streamed delta (`message_update` with a text, thinking or tool-call delta) is sent
without the partial message it belongs to: clients rebuild it from the deltas, and resending the
growing message per delta would make a long answer cost quadratic bytes.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import cast

import pydantic_core
from pydantic import BaseModel, JsonValue
from pydantic.alias_generators import to_camel

from prime_jupyter.ai.json_text import json_text, well_formed
from prime_jupyter.ai.types import ToolCall
from prime_jupyter.protocol.events import MessageUpdate, SessionEvent

__all__ = ["event_to_json", "event_to_wire", "to_wire"]

_DELTAS = {"text_delta", "thinking_delta", "toolcall_delta", "text_start", "thinking_start", "toolcall_start"}
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def to_wire(value: object) -> JsonValue:
    """Any event, message or plain value as JSON-ready data with camelCase keys."""
    return cast(JsonValue, _convert(value, keep_models=False))  # every model dumped, everything else plain


def _convert(value: object, *, keep_models: bool) -> object:
    """The walk behind `to_wire`. With `keep_models`, models are left as they are, for pydantic-core to
    serialize in the same pass as the rest (`event_to_json`)."""
    if isinstance(value, BaseModel):
        return value if keep_models else value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = _fields(type(value))
        return {
            camel: _convert(v, keep_models=keep_models)
            for name, camel in fields
            if (v := getattr(value, name)) is not None
        }
    if isinstance(value, list | tuple):
        return [_convert(v, keep_models=keep_models) for v in value]
    if isinstance(value, dict):
        return {str(k): _convert(v, keep_models=keep_models) for k, v in value.items()}
    if keep_models or value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _string(text: str) -> str:
    """A JSON string that UTF-8 can carry (`ai.json_text`)."""
    return _dumps(text if text.isascii() or _encodable(text) else well_formed(text))


def _encodable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


@functools.cache
def _fields(cls: type) -> tuple[tuple[str, str], ...]:
    """A dataclass's field names with their camelCase keys, `type` first as a reader expects it (the
    partial message left out, see above)."""
    fields = sorted(dataclasses.fields(cls), key=lambda f: f.name != "type")
    return tuple((f.name, to_camel(f.name)) for f in fields if f.name != "partial")


def event_to_wire(event: SessionEvent) -> JsonValue:
    if isinstance(event, MessageUpdate):
        inner = event.assistant_message_event
        if inner.type in _DELTAS:
            wire = to_wire(inner)
            if inner.type == "toolcall_start" and isinstance(wire, dict):
                block = inner.partial.content[inner.content_index]
                if isinstance(block, ToolCall):  # remote clients need the call's id and name before its arguments
                    wire["id"], wire["name"] = block.id, block.name
            return {"type": "message_update", "assistantMessageEvent": wire}
    return to_wire(event)


def event_to_json(event: SessionEvent) -> str:
    """One line of JSON (no newline) for an event, as `event_to_wire` has it.

    Deltas and the starts of blocks take a fast path; other events (a whole message, or every message of
    a run at `agent_end`) are serialized by pydantic-core, models included, instead of being dumped to
    dicts first (a block's end, which carries the message so far, cost 17 us the slow way, 5 us so).
    """
    if isinstance(event, MessageUpdate):
        inner = event.assistant_message_event
        if inner.type in _DELTAS:
            index = getattr(inner, "content_index", 0)
            head = '{"type":"message_update","assistantMessageEvent":{"type":"' + inner.type + '","contentIndex":'
            delta = getattr(inner, "delta", None)
            if delta is not None:
                return head + str(index) + ',"delta":' + _string(delta) + "}}"
            if inner.type != "toolcall_start":
                return head + str(index) + "}}"
            block = inner.partial.content[index]
            if isinstance(block, ToolCall):
                return head + str(index) + ',"id":' + _string(block.id) + ',"name":' + _string(block.name) + "}}"
            return json_text(event_to_wire(event))
    try:
        return pydantic_core.to_json(
            _convert(event, keep_models=True), by_alias=True, exclude_none=True, fallback=str
        ).decode()
    except pydantic_core.PydanticSerializationError:  # a lone surrogate, which UTF-8 cannot carry
        return json_text(event_to_wire(event))
