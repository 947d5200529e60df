"""Our transport asks the way the official SDKs ask: for each API, the same call made by our provider and by
the real SDK (a test dependency) reaches the scripted server with the same method, path and the headers
a provider reads (authentication, API version, content type, streaming). A new SDK that changes any of
them fails here, before a real provider refuses us."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anthropic
import openai
import pytest
import pytest_asyncio

from prime_jupyter.ai.models import Api
from prime_jupyter.ai.providers._client import close_clients
from prime_jupyter.ai.stream import StreamOptions, stream
from prime_jupyter.ai.types import Context, UserMessage
from prime_jupyter.testing import RecordedRequest, ScriptedLLMServer, ScriptedTurn, Text
from prime_jupyter.testing.models import scripted_model

KEY = "sk-parity-0123456789"
COMPARED = ("authorization", "x-api-key", "anthropic-version", "content-type", "accept")


@pytest_asyncio.fixture(autouse=True)
async def kept_connections() -> AsyncIterator[None]:
    yield
    await close_clients()


async def ours(llm: ScriptedLLMServer, api: Api) -> RecordedRequest:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ours")]))
    context = Context(system_prompt="be brief", messages=[UserMessage(content="hi")])
    async for _ in stream(scripted_model(llm, api), context, StreamOptions(api_key=KEY)):
        pass
    return llm.requests[-1]


async def sdks(llm: ScriptedLLMServer, api: Api) -> RecordedRequest:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="theirs")]))
    messages: Any = [{"role": "user", "content": "hi"}]
    if api == "anthropic-messages":
        async with anthropic.AsyncAnthropic(api_key=KEY, base_url=llm.base_url, max_retries=0) as claude:
            async for _ in await claude.messages.create(
                model="scripted-model", max_tokens=16, messages=messages, stream=True
            ):
                pass
    else:
        async with openai.AsyncOpenAI(api_key=KEY, base_url=llm.base_url + "/v1", max_retries=0) as gpt:
            if api == "openai-completions":
                chunks = await gpt.chat.completions.create(model="scripted-model", messages=messages, stream=True)
                async for _ in chunks:
                    pass
            else:
                async for _ in await gpt.responses.create(model="scripted-model", input="hi", stream=True):
                    pass
    return llm.requests[-1]


@pytest.mark.asyncio
@pytest.mark.parametrize("api", ["anthropic-messages", "openai-completions", "openai-responses"])
async def test_our_request_line_and_headers_are_the_sdks(llm: ScriptedLLMServer, api: Api) -> None:
    mine, theirs = await ours(llm, api), await sdks(llm, api)
    assert (mine.method, mine.path) == (theirs.method, theirs.path)
    assert {h: mine.headers.get(h) for h in COMPARED} == {h: theirs.headers.get(h) for h in COMPARED}
    assert KEY in (mine.headers.get("authorization", "") + mine.headers.get("x-api-key", ""))
    assert isinstance(mine.body, dict) and mine.body.get("stream") is True
