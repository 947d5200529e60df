"""Shared pieces of the two OpenAI APIs: the request as the official `openai` SDK sends it, content helpers."""

from __future__ import annotations

import os
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

from prime_jupyter.ai.data import ImageContentData, ToolResultMessageData
from prime_jupyter.ai.providers._body import Body
from prime_jupyter.ai.providers._client import Response, post_stream

if TYPE_CHECKING:
    from prime_jupyter.ai.stream import StreamOptions

__all__ = ["DEFAULT_BASE_URL", "data_url", "post", "result_images", "result_text"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_ENV_HEADERS = {"OPENAI_ORG_ID": "openai-organization", "OPENAI_PROJECT_ID": "openai-project"}
"""What the SDK's client adds from the environment."""


def post(options: StreamOptions, path: str, body: Body) -> AbstractAsyncContextManager[Response]:
    """POST `body` to `path` of the API (`/chat/completions`, `/responses`) with a bearer key."""
    base_url = options.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    headers = {"authorization": f"Bearer {options.api_key}"}
    headers.update((header, os.environ[name]) for name, header in _ENV_HEADERS.items() if os.environ.get(name))
    headers.update(options.headers)
    return post_stream(base_url.rstrip("/") + path, headers, body, options.timeout_s, options.connect_timeout_s)


def data_url(image: ImageContentData) -> str:
    """An image block as a `data:` URL."""
    return f"data:{image['mimeType']};base64,{image['data']}"


def result_text(message: ToolResultMessageData) -> str:
    """A tool result's text for APIs whose tool output is a string."""
    content = message.get("content", ())
    text = "\n".join(block["text"] for block in content if block["type"] == "text")
    if not text and any(block["type"] == "image" for block in content):
        return "(see the attached image)"
    return text or "(no output)"


def result_images(message: ToolResultMessageData) -> list[ImageContentData]:
    """A tool result's images, for APIs that take them only in a user message."""
    return [block for block in message.get("content", ()) if block["type"] == "image"]
