"""Sending a request body through a provider SDK without the SDK re-walking it.

The SDKs' `create` methods copy every container of the params (to drop `NotGiven` entries, dump
models and read files) and then JSON-encode the copy in Python. For the first request of a resumed
long session (22,000 entries, a 12 MB body) that is about half a second of work on data that is
already plain JSON. So the body is encoded once, in Rust, and handed to the SDK's own `post` as
raw `content`: auth headers, base URL, default and extra headers, timeouts and the mapping of error
statuses to the SDK's exceptions all stay the SDK's, exactly as `create` would do them.

The garbage collector is the host's business, not this module's: the body of a long session is a fresh
tree of some hundred thousand dicts and lists that the collector would rescan while it grows, and a
host that builds such bodies pauses it around them (its "bulk load" moment).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, TypeVar

import pydantic_core
from pydantic import JsonValue

from prime_jupyter.ai.errors import NotAnEventStream
from prime_jupyter.ai.history import History
from prime_jupyter.ai.json_text import json_text
from prime_jupyter.ai.types import Context

if TYPE_CHECKING:
    import httpx2

__all__ = ["encode_body", "encode_request", "response_class", "streamed"]

ModelT = TypeVar("ModelT")
OptionsT = TypeVar("OptionsT")


def encode_request(
    build: Callable[[ModelT, Context, OptionsT], Mapping[str, JsonValue] | bytes],
    model: ModelT,
    context: Context,
    options: OptionsT,
) -> bytes:
    """`build(model, context, options)` encoded as the request body (bytes from `build` are taken as
    the encoded body: a provider that encodes its messages once, `_encoded`).

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
    return body if isinstance(body, bytes) else encode_body(body)


def encode_body(body: Mapping[str, JsonValue]) -> bytes:
    """Compact UTF-8 JSON, as the SDKs send it.

    A string holding a lone surrogate cannot be UTF-8, and providers' JSON parsers reject its `\\udXXX`
    escape; it is sent as U+FFFD instead of failing the request (`ai.json_text`; the SDKs raise there).
    """
    try:
        return pydantic_core.to_json(body)
    except pydantic_core.PydanticSerializationError:
        return json_text(body).encode()


def response_class() -> type[httpx2.Response]:
    """What to pass as `cast_to` to get the SDK's HTTP response itself, unread (both SDKs use httpx2)."""
    import httpx2

    return httpx2.Response


@asynccontextmanager
async def streamed(request: Awaitable[object]) -> AsyncIterator[httpx2.Response]:
    """Await an SDK `post(..., cast_to=response_class(), stream=True)` and close its response afterwards.

    An error status never gets here: the SDK reads its body and raises its `APIStatusError`. A JSON body
    instead of an event stream (a server or proxy without streaming, or an error reported with status
    200) raises `NotAnEventStream` with what the body says.
    """
    response = await request
    if not isinstance(response, response_class()):
        raise TypeError(f"the SDK returned {type(response).__name__}, not an HTTP response")
    try:
        if response.headers.get("content-type", "").startswith("application/json"):
            raise NotAnEventStream(_json_instead(str(response.url), await response.aread()))
        yield response
    finally:
        await response.aclose()


def _json_instead(url: str, body: bytes) -> str:
    """What to tell a user whose server answered a streaming request with JSON."""
    detail = body[:500].decode("utf-8", "replace").strip()
    with contextlib.suppress(ValueError):
        data = json.loads(body)
        error = data.get("error") if isinstance(data, dict) else None
        message = error.get("message") if isinstance(error, dict) else error
        if isinstance(message, str) and message:
            detail = message
    return f"{url} answered with JSON instead of streaming its answer (does it support stream=true?): {detail}"
