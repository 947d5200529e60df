"""Shared pieces of the two OpenAI APIs: the cached client and content helpers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prime_jupyter.ai.data import ImageContentData, ToolResultMessageData
from prime_jupyter.ai.providers._http import cached_client
from prime_jupyter.ai.providers._sdk_import import import_light

if TYPE_CHECKING:
    import openai

    from prime_jupyter.ai.stream import StreamOptions

__all__ = ["client_for", "data_url", "result_images", "result_text"]


def client_for(options: StreamOptions) -> openai.AsyncOpenAI:
    """One client per key, base URL and timeout (and loop), so turns reuse the connection pool. SDK
    retries are off: ours apply."""

    def make(use_aiohttp: bool) -> openai.AsyncOpenAI:
        client_class, aiohttp_client = _sdk()
        return client_class(
            api_key=options.api_key,
            base_url=options.base_url,
            max_retries=0,
            timeout=options.timeout_s,
            http_client=aiohttp_client() if use_aiohttp else None,
        )

    return cached_client(("openai", options.api_key, options.base_url, options.timeout_s), make, options.http_backend)


def _sdk() -> tuple[type[openai.AsyncOpenAI], type[openai.DefaultAioHttpClient]]:
    """The SDK's client and aiohttp client classes, imported without its types (`_sdk_import`)."""
    try:
        client, base, logs = import_light("openai", ["openai._client", "openai._base_client", "openai._utils._logs"])
        logs.setup_logging()  # what `openai/__init__.py` does (OPENAI_LOG)
        return client.AsyncOpenAI, base.DefaultAioHttpClient
    except (ImportError, AttributeError):  # an SDK laid out otherwise: the ordinary import
        import openai

        return openai.AsyncOpenAI, openai.DefaultAioHttpClient


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
