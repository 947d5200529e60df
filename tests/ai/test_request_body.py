"""The request each provider sends: the body it built, encoded once, with the SDK's headers around it."""

from __future__ import annotations

import json

import pydantic_core
import pytest

from prime_jupyter.ai.models import Api
from prime_jupyter.ai.providers import anthropic, openai_completions, openai_responses
from prime_jupyter.ai.providers._request import encode_body
from prime_jupyter.ai.stream import StreamOptions, stream
from prime_jupyter.ai.types import AssistantMessage, Context, TextContent, ToolCall, ToolResultMessage, UserMessage
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text
from prime_jupyter.testing.models import APIS, scripted_model

BUILDERS = {
    "anthropic-messages": anthropic.build_request,
    "openai-completions": openai_completions.build_request,
    "openai-responses": openai_responses.build_request,
}


def history() -> Context:
    call = ToolCall(id="c1", name="bash", arguments={"command": "ls", "n": 1.5})
    return Context(
        system_prompt="be brief",
        messages=[
            UserMessage(content="line\u2028separator, caf\u00e9 \U0001f600"),
            AssistantMessage(content=[call], api="x", provider="x", model="x", stop_reason="toolUse"),
            ToolResultMessage(tool_call_id="c1", tool_name="bash", content=[TextContent(text="a.txt")]),
            UserMessage(content="next"),
        ],
    )


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_the_server_receives_the_built_body_with_auth_and_extra_headers(llm: ScriptedLLMServer, api: Api) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    model = scripted_model(llm, api)
    options = StreamOptions(api_key="secret", headers={"x-trace": "t-1"})
    await stream(model, history(), options).result()
    request = llm.requests[-1]
    assert request.body == json.loads(json.dumps(BUILDERS[api](model, history(), options)))
    assert request.headers["authorization"] == "Bearer secret"  # the SDK's auth, for all three
    assert request.headers["x-trace"] == "t-1"
    assert request.headers["content-type"] == "application/json"


def test_bodies_are_compact_utf8_and_keep_line_separators_inside_strings() -> None:
    encoded = encode_body({"text": "a\u2028b caf\u00e9", "n": [1, 2.5, None, True]})
    assert encoded == '{"text":"a\u2028b caf\u00e9","n":[1,2.5,null,true]}'.encode()


def test_a_lone_surrogate_is_sent_replaced_instead_of_failing_the_request() -> None:
    encoded = encode_body({"text": "broken \ud800 output", "pair": "\ud83d\ude00"})
    assert pydantic_core.from_json(encoded) == {"text": "broken \ufffd output", "pair": "\U0001f600"}
