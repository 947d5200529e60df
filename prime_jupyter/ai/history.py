"""A conversation held as models, as JSON data, or both: what providers convert and the loop extends.

Providers build their requests from `MessageData` (`ai.data`), a message's JSON form: the dict its
transcript line holds (camelCase keys, `None` fields left out). A resumed session's messages arrive in that
form straight from the parsed transcript, and stay that way: building pydantic models for a
22,000-entry history took longer than everything else about resuming it, and only the few messages
something asks for as models (the last assistant message, for its usage) are ever validated. A
message the runtime creates arrives as a model and is dumped to its data once, the first time a
request needs it; a message is final by then (the partial answer being streamed is never in a
`History`). Neither form is changed in place afterwards: copies of a `History` share them.

A `History` also carries memos: immutable values that describe its first messages (a provider's
encoded request messages, `providers._encoded`). Copies and prefix slices keep them, since they begin
with the same messages; leaving malformed messages out drops them.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Iterator, Sequence
from typing import cast, overload

from pydantic import TypeAdapter, ValidationError

from prime_jupyter.ai.data import MessageData
from prime_jupyter.ai.types import Message

__all__ = ["History", "MalformedMessageError", "message_data", "messages_data"]

log = logging.getLogger(__name__)


class MalformedMessageError(ValueError):
    """A message loaded as data is not a valid message (a damaged or hand-edited transcript)."""


@functools.cache
def _message_adapter() -> TypeAdapter[Message]:
    return TypeAdapter(Message)


def message_data(message: Message) -> MessageData:
    """The JSON form of a message model (the keys and values its transcript line has)."""
    return cast(MessageData, message.model_dump(by_alias=True, exclude_none=True))


def messages_data(messages: Sequence[Message]) -> Iterator[MessageData]:
    """The JSON form of each message: a `History`'s own (cached), or dumped from plain models."""
    if isinstance(messages, History):
        return messages.data()
    return (message_data(message) for message in messages)


def _first(error: ValidationError) -> str:
    first = error.errors()[0]
    return f"{'.'.join(str(part) for part in first['loc'])}: {first['msg']}"


class History(Sequence[Message]):
    """Messages in order; each is a model, JSON data, or both, and turned into the other on first use."""

    __slots__ = ("_data", "_memos", "_models")

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        self._models: list[Message | None] = list(messages)
        self._data: list[MessageData | None] = [None] * len(self._models)
        self._memos: dict[str, object] = {}

    def append(self, message: Message) -> None:
        self._models.append(message)
        self._data.append(None)

    def append_data(self, data: MessageData) -> None:
        """Add a message by its JSON form (a `user`, `assistant` or `toolResult` role); validated when read."""
        self._models.append(None)
        self._data.append(data)

    def copy(self) -> History:
        """A history of its own over the same messages."""
        other = History.__new__(History)
        other._models = list(self._models)
        other._data = list(self._data)
        other._memos = dict(self._memos)
        return other

    def memo(self, key: str) -> object | None:
        """The memo kept under `key` (see the module docstring), or None."""
        return self._memos.get(key)

    def set_memo(self, key: str, value: object) -> None:
        """Keep `value`, an immutable description of this history's first messages, under `key`."""
        self._memos[key] = value

    def data(self, start: int = 0) -> Iterator[MessageData]:
        """Each message's JSON form from index `start`, dumped from its model (and kept) where it has none yet."""
        models, data = self._models, self._data
        for index in range(start, len(data)):
            item = data[index]
            if item is None:
                model = models[index]
                assert model is not None
                item = data[index] = message_data(model)
            yield item

    def drop_malformed(self) -> int:
        """Validate the messages held only as data and leave out those that are not valid; how many were.

        For a request that could not be built from the data: a damaged or hand-edited transcript
        line should cost that message, not the session (the tree keeps the line as an unknown entry).
        """
        kept_models: list[Message | None] = []
        kept_data: list[MessageData | None] = []
        dropped = 0
        for model, data in zip(self._models, self._data, strict=True):
            if model is None:
                try:
                    model = _message_adapter().validate_python(data)
                except ValidationError as exc:
                    dropped += 1
                    log.warning("a malformed message of the transcript is left out of the context: %s", _first(exc))
                    continue
            kept_models.append(model)
            kept_data.append(data)
        self._models, self._data = kept_models, kept_data
        if dropped:
            self._memos = {}
        return dropped

    def __len__(self) -> int:
        return len(self._models)

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> History: ...

    def __getitem__(self, index: int | slice) -> Message | History:
        if isinstance(index, slice):
            part = History.__new__(History)
            part._models = self._models[index]
            part._data = self._data[index]
            prefix = index.start in (None, 0) and index.step in (None, 1)
            part._memos = dict(self._memos) if prefix else {}
            return part
        model = self._models[index]
        if model is None:
            model = self._models[index] = self._validate(index)
        return model

    def __iter__(self) -> Iterator[Message]:
        for index in range(len(self._models)):
            yield self[index]

    def _validate(self, index: int) -> Message:
        data = self._data[index]
        try:
            return _message_adapter().validate_python(data)
        except ValidationError as exc:
            raise MalformedMessageError(
                f"message {index + 1} of the conversation is malformed ({_first(exc)}); "
                "the session's transcript was damaged or edited by hand: fix or remove that line"
            ) from None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"History({len(self)} messages)"
