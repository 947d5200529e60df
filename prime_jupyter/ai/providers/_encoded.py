"""Request messages encoded once: each turn converts and encodes only the messages that are new.

In a run of the agent loop every request repeats the messages of the one before and adds a few. Built
from scratch, the Anthropic body of a 10,000-entry history (5.7 MB) costs about 40 ms a turn (20 ms to
convert the messages, 12 ms to encode them, the rest to clean the conversation), so the gap between two
turns grew with the history (50 ms at 10,000 entries against 3 ms at 10, `benchmarks/bench_agent.py`).

So a provider keeps, on the `History` it is given (`History.memo`), an `EncodedPrefix`: the encoded
wire messages of the history's first `count` messages, up to a point where its conversion can resume
from nothing (`Normalizer.quiet`). The next request converts the messages from `count` on, joins the
bytes, and keeps a longer prefix. A prefix is immutable and describes the messages it was made from:
the `History` hands it to its copies and prefix slices (which begin with the same messages) and drops
it when it leaves malformed messages out. A compaction or a branch switch builds a new `History`,
without memos, so its first request is built in full.

What the body says does not change: the messages are encoded one by one with the same encoder as a
whole body, and compact JSON of a list is its items' JSON joined by commas. Tests compare the bytes with
the body built from scratch (`tests/ai/test_encoded.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pydantic_core
from pydantic import JsonValue

from prime_jupyter.ai.history import History

__all__ = ["EncodedPrefix", "NotEncodable", "encode_part", "prefix_of", "with_messages"]

_EMPTY_MESSAGES = b'"messages":[]'


@dataclass(frozen=True, slots=True)
class EncodedPrefix:
    """The wire messages of a history's first `count` messages, each as compact JSON, and which of
    them are the provider's `user` role (where a cache point may go)."""

    count: int
    parts: tuple[bytes, ...] = ()
    users: tuple[bool, ...] = ()


_NOTHING = EncodedPrefix(0)


def prefix_of(history: History, key: str) -> EncodedPrefix:
    """The prefix kept on `history` under `key`, or the empty one."""
    prefix = history.memo(key)
    if isinstance(prefix, EncodedPrefix) and prefix.count <= len(history):
        return prefix
    return _NOTHING


class NotEncodable(Exception):
    """A wire message cannot be UTF-8 (a lone surrogate): the body is built whole, the old way, where
    `_request.encode_body` repairs it."""


def encode_part(value: Mapping[str, JsonValue]) -> bytes:
    """One wire message as the body's encoder writes it; raises `NotEncodable`."""
    try:
        return pydantic_core.to_json(value)
    except pydantic_core.PydanticSerializationError:
        raise NotEncodable from None


def with_messages(encoded_body: bytes, messages: list[bytes]) -> bytes:
    """`encoded_body`, whose `messages` is `[]`, with the encoded `messages` in their place.

    The first `"messages":[]` is the key: inside a JSON string every `"` is escaped, so the text cannot
    occur there, and the keys before it (`model`, `stream`) hold a string and a boolean.
    """
    if not messages:
        return encoded_body
    at = encoded_body.index(_EMPTY_MESSAGES) + len(_EMPTY_MESSAGES) - 1
    head, tail = encoded_body[:at], encoded_body[at:]
    if len(messages) == 1:
        return head + messages[0] + tail
    return b",".join([head + messages[0], *messages[1:-1], messages[-1] + tail])  # the messages copied once
