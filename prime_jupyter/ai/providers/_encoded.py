"""Request messages encoded once: each turn converts and encodes only the messages that are new.

In a run of the agent loop every request repeats the messages of the one before and adds a few. Built
from scratch, the Anthropic body of a 10,000-entry history (5.7 MB) costs about 40 ms a turn (20 ms to
convert the messages, 12 ms to encode them, the rest to clean the conversation), so the gap between two
turns grew with the history (50 ms at 10,000 entries against 3 ms at 10, `benchmarks/bench_agent.py`).

So a provider keeps, on the `History` it is given (`History.memo`), an `EncodedPrefix`: the encoded
wire messages of the history's first `count` messages, up to a point where its conversion can resume
from nothing (`Normalizer.quiet`). The next request converts the messages from `count` on, sends the
prefix's chunks and the new pieces as they are (the transport never joins them, `_body.Body`), and
keeps a longer prefix. The prefix holds its wire messages already joined, in a few chunks whose sizes
fall geometrically (a turn's new messages are one small chunk, merged into the one before when that
one is not more than twice as large), so a request is about a dozen chunks, not one piece per message:
at 10,000 entries joining 10,000 pieces, and copying the lists and tuples of them that the prefix was,
took about 2 ms of each turn's encoding in the agent, against 0.9 ms for the same 5.7 MB in a dozen
chunks, and nothing now that they are not joined at all. The price is one more copy of the messages
at the first request (the chunk the prefix starts with). The newest `user` wire message stays a chunk
of its own, since the cache point goes on it. A prefix is immutable and describes the messages it was made from:
the `History` hands it to its copies and prefix slices (which begin with the same messages) and drops
it when it leaves malformed messages out. A compaction or a branch switch builds a new `History`,
without memos, so its first request is built in full.

What the body says does not change: the messages are encoded one by one with the same encoder as a
whole body, and compact JSON of a list is its items' JSON joined by commas. Tests compare the bytes with
the body built from scratch (`tests/ai/test_encoded.py`, `tests/ai/test_encoded_openai.py`).

The two OpenAI APIs convert each cleaned message to wire messages on its own (`encoded_messages`): only
Chat Completions holds something back, the images of a run of tool results, which go in a user message
after the run. At a quiet point no tool result can follow (the normalizer drops a result without its
call), so that message comes next whatever follows: it is let out there (`settle`), and the conversion
resumes from nothing. They have no cache point, so their prefixes have no `user` chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import pydantic_core
from pydantic import JsonValue

from prime_jupyter.ai.data import MessageData
from prime_jupyter.ai.history import History
from prime_jupyter.ai.providers._transform import Normalizer

__all__ = [
    "EncodedPrefix",
    "Mark",
    "NotEncodable",
    "encode_part",
    "encoded_messages",
    "extended",
    "prefix_of",
    "with_messages",
]

_EMPTY_MESSAGES = b'"messages":[]'

Wire = Iterable[Mapping[str, JsonValue]]


@dataclass(frozen=True, slots=True)
class EncodedPrefix:
    """The wire messages of a history's first `count` messages, each as compact JSON, joined by commas
    in `chunks`; `user` is the index of the chunk that is exactly the last wire message of the
    provider's `user` role (where the cache point goes), or -1 when there is none."""

    count: int
    chunks: tuple[bytes, ...] = ()
    user: int = -1


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


Mark = Callable[[EncodedPrefix, list[bytes], list[bool]], list[bytes]]
"""A provider's cache point: the request's pieces from the prefix, the new parts and which of them are of
the `user` role (Anthropic's `_marked`)."""


def encoded_messages(
    history: History,
    key: str,
    convert: Callable[[MessageData], Wire],
    settle: Callable[[], Wire],
    mark: Mark | None = None,
    *,
    images: bool = True,
) -> list[bytes] | None:
    """The wire messages of `history`, encoded (the prefix kept under `key`, then one part per new wire
    message), with the cache point `mark` puts, if any; the history keeps what it can reuse.

    `convert` gives the wire messages of one cleaned message; `settle` those it still holds back, at
    a quiet point and at the end, after which it holds nothing (the module docstring). None when a
    message cannot be UTF-8 (a lone surrogate): the caller then builds the body whole. `images`: whether
    the model takes images; a prefix encoded for the other kind of model is not reused (a session that
    switched to a model without images would send the images its prefix holds).
    """
    key = key if images else f"{key}:no-images"
    prefix = prefix_of(history, key)
    parts: list[bytes] = []  # the wire messages after the prefix
    users: list[bool] = []  # which of them are of the `user` role
    kept, count = (prefix.count, 0), prefix.count
    normalizer = Normalizer(images)

    def add(wire: Wire) -> None:
        for message in wire:
            parts.append(encode_part(message))
            users.append(message.get("role") == "user")

    try:
        for message in history.data(count):
            count += 1
            for cleaned in normalizer.push(message):
                add(convert(cleaned))
            if normalizer.quiet:  # no call waits for a result: the parts so far are final
                add(settle())
                kept = (count, len(parts))
        for cleaned in normalizer.finish():
            add(convert(cleaned))
        add(settle())
    except NotEncodable:
        return None
    if kept[0] > prefix.count:
        marks = users[: kept[1]] if mark is not None else ()
        history.set_memo(key, extended(prefix, kept[0], parts[: kept[1]], marks))
    return mark(prefix, parts, users) if mark is not None else [*prefix.chunks, *parts]


def extended(prefix: EncodedPrefix, count: int, parts: list[bytes], users: Sequence[bool] = ()) -> EncodedPrefix:
    """`prefix` followed by the wire messages `parts` (`users`: which are of the `user` role, for a
    provider with a cache point), which together describe the history's first `count` messages."""
    user = prefix.user
    stack = list(prefix.chunks[:user] if user >= 0 else prefix.chunks)  # what no cache point goes on
    rest = list(prefix.chunks[user:]) if user >= 0 else []  # the last user chunk, then what followed it
    last = max((index for index, is_user in enumerate(users) if is_user), default=-1)
    if last >= 0:  # a newer user message: everything before it joins the stack
        _push(stack, [*rest, *parts[:last]])
        rest = parts[last:]
    elif rest:
        rest = [*rest, *parts]
    else:
        _push(stack, parts)
    if len(rest) > 2:  # what follows the user chunk is never marked: one chunk
        rest = [rest[0], b",".join(rest[1:])]
    return EncodedPrefix(count, (*stack, *rest), len(stack) if rest else -1)


def _push(stack: list[bytes], parts: list[bytes]) -> None:
    """Add `parts` to `stack` as one chunk, merging the last chunks while the one before is not more
    than twice as large, so the chunks stay few and each byte is copied a few times in all."""
    if not parts:
        return
    stack.append(b",".join(parts))
    while len(stack) > 1 and len(stack[-2]) <= 2 * len(stack[-1]):
        last = stack.pop()
        stack[-1] = b",".join((stack[-1], last))


def with_messages(encoded_body: bytes, messages: list[bytes], empty: bytes = _EMPTY_MESSAGES) -> list[bytes]:
    """`encoded_body`, whose messages are `[]` (`empty`: the key, `"input":[]` for Responses), with
    the encoded `messages` (wire messages, or chunks of them joined by commas) in their place: the
    body's pieces, in order, which the transport sends without joining them (`_body.Body`), so the
    prefix's chunks are never copied.

    The first `empty` is the key: inside a JSON string every `"` is escaped, so the text cannot occur
    there, and the keys before it (`model`, and `stream` for Anthropic) hold a string and a boolean.
    """
    if not messages:
        return [encoded_body]
    at = encoded_body.index(empty) + len(empty) - 1
    pieces = [encoded_body[:at]]
    for message in messages:
        pieces += (message, b",")
    pieces[-1] = encoded_body[at:]
    return pieces
