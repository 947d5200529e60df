"""Models on the cloud platforms: Anthropic on Amazon Bedrock and Google Vertex AI, OpenAI on Azure.

The request and the answer are the APIs' own (`anthropic.build_request`, `openai_completions.build_request`
and their `consume`); what differs is how a request is addressed and signed, and that is the SDKs' work
(design.md D15): `AsyncAnthropicBedrock` signs with AWS Signature V4 from the AWS credential chain (the
environment, `~/.aws`, a profile, an instance role) or sends a Bedrock API key, and decodes Bedrock's
binary event stream; `AsyncAnthropicVertex` takes a token from Google's credential chain (Application
Default Credentials); `AsyncAzureOpenAI` addresses the deployment with its `api-version` and sends the
key as `api-key`. Each SDK event is handed to the API's own consumer as the SSE message it stands for,
so an answer folds the same way whichever road it took.

The SDKs come with the `cloud` extra (`pip install prime-jupyter[cloud]`: `anthropic[bedrock,vertex]`,
`openai`); they are imported only when such a model is asked.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from prime_jupyter._sse import SseMessage
from prime_jupyter.ai.errors import ProviderConnectionError, ProviderSetupError, ProviderStatusError
from prime_jupyter.ai.models import CloudPlatform, Model
from prime_jupyter.ai.types import Context

if TYPE_CHECKING:
    from prime_jupyter.ai.stream import Emitter, StreamOptions

__all__ = ["stream_provider"]

NO_KEY = "none"
"""What the registry hands out for a provider with no key of its own: the SDK's credential chain then."""


async def stream_provider(model: Model, context: Context, options: StreamOptions, emit: Emitter) -> None:
    cloud = model.cloud
    assert cloud is not None
    if cloud.platform == "azure":
        await _azure(model, cloud, context, options, emit)
    else:
        await _anthropic(model, cloud, context, options, emit)


async def _anthropic(
    model: Model, cloud: CloudPlatform, context: Context, options: StreamOptions, emit: Emitter
) -> None:
    from prime_jupyter.ai.providers import anthropic as api

    sdk = _import("anthropic", "anthropic[bedrock,vertex]")
    key = options.api_key if options.api_key != NO_KEY else None
    common: dict[str, Any] = {"max_retries": 0, "timeout": options.timeout_s, "default_headers": options.headers}
    if options.base_url:
        common["base_url"] = options.base_url
    if cloud.platform == "bedrock":
        client = sdk.AsyncAnthropicBedrock(aws_region=cloud.region, aws_profile=cloud.profile, api_key=key, **common)
    else:
        place = {"region": cloud.region, "project_id": cloud.project_id}
        client = sdk.AsyncAnthropicVertex(access_token=key, **{k: v for k, v in place.items() if v}, **common)
    body = api.build_request(model, context, options)
    async with client:
        with _errors(sdk, options.base_url or str(client.base_url)):
            answer = await client.post(
                "/v1/messages",
                body=body,
                cast_to=sdk.types.Message,
                stream=True,
                stream_cls=sdk.AsyncStream[sdk.types.RawMessageStreamEvent],
            )
            with emit.done_after():
                await api.consume(_named(answer), emit)


async def _azure(model: Model, cloud: CloudPlatform, context: Context, options: StreamOptions, emit: Emitter) -> None:
    from prime_jupyter.ai.providers import openai_completions as api

    sdk = _import("openai", "openai")
    endpoint = options.base_url or model.base_url
    key = options.api_key if options.api_key != NO_KEY else None
    client = sdk.AsyncAzureOpenAI(
        azure_endpoint=endpoint,
        api_version=cloud.api_version,
        api_key=key,
        max_retries=0,
        timeout=options.timeout_s,
        default_headers=options.headers,
    )
    body = api.build_request(model, context, options)
    async with client:
        with _errors(sdk, str(endpoint)):
            answer = await client.post(
                "/chat/completions",
                body=body,
                cast_to=sdk.types.chat.ChatCompletion,
                stream=True,
                stream_cls=sdk.AsyncStream[sdk.types.chat.ChatCompletionChunk],
            )
            emit.start()
            with emit.done_after():
                await api.consume(_chunks(answer), emit)


async def _named(events: AsyncIterator[Any]) -> AsyncIterator[SseMessage]:
    """The SDK's Anthropic events as the SSE messages they were: named by their type."""
    async for event in events:
        yield SseMessage(data=event.to_json(indent=None), event=event.type)


async def _chunks(chunks: AsyncIterator[Any]) -> AsyncIterator[SseMessage]:
    """The SDK's chat-completion chunks as SSE messages, with the `[DONE]` the SDK took."""
    async for chunk in chunks:
        yield SseMessage(data=chunk.to_json(indent=None))
    yield SseMessage(data="[DONE]")


def _import(name: str, extra: str) -> Any:
    try:
        return __import__(name)
    except ImportError:
        raise ProviderSetupError(
            f"models on Bedrock, Vertex AI and Azure go through the {name} SDK: pip install 'prime-jupyter[cloud]' "
            f"(or {extra})"
        ) from None


@contextmanager
def _errors(sdk: Any, url: str) -> Iterator[None]:
    """The SDK's errors as ours, so that retries, messages and key hints work as for the other providers."""
    try:
        yield
    except sdk.APIStatusError as exc:
        headers = exc.response.headers
        raise ProviderStatusError(
            exc.status_code,
            _message(exc),
            error_type=_error_type(exc),
            retry_after=headers.get("retry-after"),
            request_id=headers.get("request-id") or headers.get("x-request-id"),
        ) from exc
    except sdk.APIConnectionError as exc:
        timed_out = isinstance(exc, sdk.APITimeoutError)
        raise ProviderConnectionError(f"{url} could not be reached: {exc}", url, timed_out=timed_out) from exc


def _message(exc: Any) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(body.get("message"), str):  # Bedrock's own errors
            return str(body["message"])
    return str(exc.message or json.dumps(body))


def _error_type(exc: Any) -> str | None:
    body = exc.body
    error = body.get("error") if isinstance(body, dict) else None
    kind = error.get("type") or error.get("code") if isinstance(error, dict) else None
    return str(kind) if kind else None
