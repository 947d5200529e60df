"""Encoding a provider's request body once, as the bytes the client sends (`_client.post_stream`).

The SDKs' `create` methods copy every container of the params (to drop `NotGiven` entries, dump
models and read files) and then JSON-encode the copy in Python. For the first request of a resumed
long session (22,000 entries, a 12 MB body) that is about half a second of work on data that is
already plain JSON. So the body is built as plain JSON values and encoded once, in Rust.

The garbage collector is the host's business, not this module's: the body of a long session is a fresh
tree of some hundred thousand dicts and lists that the collector would rescan while it grows, and a
host that builds such bodies pauses it around them (its "bulk load" moment).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

import pydantic_core
from pydantic import JsonValue

from prime_jupyter.ai.history import History
from prime_jupyter.ai.json_text import json_text
from prime_jupyter.ai.providers._body import Body
from prime_jupyter.ai.types import Context

__all__ = ["encode_body", "encode_request"]

ModelT = TypeVar("ModelT")
OptionsT = TypeVar("OptionsT")


def encode_request(
    build: Callable[[ModelT, Context, OptionsT], Mapping[str, JsonValue] | Body],
    model: ModelT,
    context: Context,
    options: OptionsT,
) -> Body:
    """`build(model, context, options)` encoded as the request body (bytes or pieces of them from
    `build` are taken as the encoded body: a provider that encodes its messages once, `_encoded`).

    Messages a `History` holds as transcript data are not validated before they are converted. If
    converting them fails, the malformed ones are left out (see `History.drop_malformed`) and the body
    is built again; a failure with valid messages is a bug and is raised.
    """
    try:
        body = build(model, context, options)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError):
        if not isinstance(context.messages, History) or not context.messages.drop_malformed():
            raise
        body = build(model, context, options)
    return encode_body(body) if isinstance(body, Mapping) else body


def encode_body(body: Mapping[str, JsonValue]) -> bytes:
    """Compact UTF-8 JSON, as the SDKs send it.

    A string holding a lone surrogate cannot be UTF-8, and providers' JSON parsers reject its `\\udXXX`
    escape; it is sent as U+FFFD instead of failing the request (`ai.json_text`; the SDKs raise there).
    """
    try:
        return pydantic_core.to_json(body)
    except pydantic_core.PydanticSerializationError:
        return json_text(body).encode()
