"""The two OpenAI APIs encode each message once too (`providers._encoded.encoded_messages`): the body
is byte for byte the one built from scratch, turn after turn as the agent loop grows the history, and
the kept prefix is sent as it is, never converted again."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel
from test_history import PIXEL, conversation

from prime_jupyter.agent.loop import LoopConfig, run_loop
from prime_jupyter.agent.tool import AgentTool, AgentToolResult, AnyTool, ToolUpdate
from prime_jupyter.ai.abort import AbortController, AbortSignal
from prime_jupyter.ai.history import History
from prime_jupyter.ai.models import Api, Model
from prime_jupyter.ai.providers import anthropic, openai_completions, openai_responses
from prime_jupyter.ai.providers._body import Body
from prime_jupyter.ai.providers._encoded import prefix_of
from prime_jupyter.ai.providers._request import encode_body, encode_request
from prime_jupyter.ai.stream import StreamOptions
from prime_jupyter.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text
from prime_jupyter.testing import ToolCall as ScriptedCall
from prime_jupyter.testing.models import scripted_model

OPTIONS = StreamOptions(api_key="k", session_id="s1")
TOOLS = [ToolSpec(name="bash", description="run", parameters={"properties": {"messages": [], "input": []}})]
"""A schema holding the body's own keys (`with_messages` takes the first)."""
OPENAI: list[Api] = ["openai-completions", "openai-responses"]
ONCE: dict[Api, Callable[[Model, Context, StreamOptions], Body]] = {
    "anthropic-messages": anthropic.encode_messages_once,
    "openai-completions": openai_completions.encode_messages_once,
    "openai-responses": openai_responses.encode_messages_once,
}
BUILD = {
    "anthropic-messages": anthropic.build_request,
    "openai-completions": openai_completions.build_request,
    "openai-responses": openai_responses.build_request,
}


def _sent(body: Body) -> bytes:
    return body if isinstance(body, bytes) else b"".join(body)


def _bodies(
    llm: ScriptedLLMServer, api: Api, messages: History, system: str = "be brief", tools: list[ToolSpec] = TOOLS
) -> tuple[bytes, bytes]:
    """(the body encoded once, the body built from scratch) for `messages`."""
    model = scripted_model(llm, api)
    context = Context.model_construct(system_prompt=system, messages=messages, tools=tools)
    once = _sent(encode_request(ONCE[api], model, context, OPTIONS))
    return once, encode_body(BUILD[api](model, context, OPTIONS))


def _kept(history: History, api: Api) -> int:
    """How many of its first messages `history` holds encoded for `api` (for the next request to reuse)."""
    return prefix_of(history, api).count


def _image() -> ImageContent:
    return ImageContent(data=PIXEL, mime_type="image/png")


def _turns() -> list[Message]:
    """`conversation()` (images in results, a failed turn, an aborted one, an orphan result), then tool
    turns as the agent loop appends them: two parallel calls whose results bring images, then one call."""
    out = conversation()
    for i in range(3):
        calls = [ToolCall(id=f"t{i}{j}", name="bash", arguments={"command": f"echo {i}{j}"}) for j in range(2 - i % 2)]
        asked = AssistantMessage(content=[TextContent(text=f"turn {i}"), *calls], api="x", provider="p", model="m")
        asked.stop_reason = "toolUse"
        out.append(asked)
        for call in calls:
            content = [TextContent(text=call.id), _image()] if i != 1 else [_image()]
            out.append(ToolResultMessage(tool_call_id=call.id, tool_name="bash", content=content))
    out.append(AssistantMessage(content=[TextContent(text="all done")], api="x", provider="p", model="m"))
    return out


@pytest.mark.parametrize("api", OPENAI)
def test_every_turns_body_is_the_one_built_from_scratch_and_the_kept_prefix_grows(
    llm: ScriptedLLMServer, api: Api
) -> None:
    history, kept = History(), []
    for count, message in enumerate(_turns(), start=1):
        history.append(message)
        once, built = _bodies(llm, api, history)
        assert once == built, f"after {count} messages"
        kept.append(_kept(history, api))
    assert kept == sorted(kept) and kept[-1] == len(history)
    assert kept[-3] == len(history) - 4  # the first of two results: kept up to before the call
    assert kept[-2] == len(history) - 1  # both results and the images' message after them: all kept


def test_without_the_usage_chunk_the_body_is_the_one_built_from_scratch(llm: ScriptedLLMServer) -> None:
    history = History(_turns())
    model = scripted_model(llm, "openai-completions")
    context = Context.model_construct(system_prompt="be brief", messages=history, tools=TOOLS)
    for _ in range(2):  # converted, then from the kept prefix
        once = openai_completions.encode_messages_once(model, context, OPTIONS, usage=False)
        built = openai_completions.build_request(model, context, OPTIONS, usage=False)
        assert _sent(once) == encode_body(built) and b"stream_options" not in _sent(once)


@pytest.mark.parametrize("api", OPENAI)
def test_the_kept_prefix_is_sent_as_it_is_and_not_converted_again(llm: ScriptedLLMServer, api: Api) -> None:
    first = History([UserMessage(content="what the prefix was made from"), UserMessage(content="b")])
    _bodies(llm, api, first)
    memo = prefix_of(first, api)
    assert memo.count == 2
    assert _bodies(llm, api, first)[0] == _bodies(llm, api, first)[1]
    assert prefix_of(first, api) is memo  # nothing new: the memo stays
    other = History([UserMessage(content="other words"), UserMessage(content="b"), UserMessage(content="c")])
    other.set_memo(api, memo)  # a prefix is trusted to describe the history's first messages
    once, built = _bodies(llm, api, other)
    assert b"what the prefix was made from" in once and b"other words" not in once
    assert b"other words" in built and prefix_of(other, api).count == 3


def test_each_api_keeps_its_own_prefix_on_the_same_history(llm: ScriptedLLMServer) -> None:
    history = History(_turns())
    for api in ONCE:
        once, built = _bodies(llm, api, history)
        assert once == built
    prefixes = [prefix_of(history, api) for api in ONCE]
    assert all(prefix.count == len(history) for prefix in prefixes)
    assert len({prefix.chunks for prefix in prefixes}) == 3
    history.append(UserMessage(content="next"))
    for api in ONCE:
        assert _bodies(llm, api, history)[0] == _bodies(llm, api, history)[1]


@pytest.mark.parametrize("api", OPENAI)
@pytest.mark.parametrize("where", ["message", "system", "tool"])
def test_a_lone_surrogate_builds_the_whole_body_the_old_way(llm: ScriptedLLMServer, api: Api, where: str) -> None:
    history = History(_turns())
    _bodies(llm, api, history)
    kept = prefix_of(history, api)
    broken = "broken \ud800 output"
    history.append(UserMessage(content=broken if where == "message" else "fine"))
    tools = [ToolSpec(name="bash", description=broken, parameters={})] if where == "tool" else TOOLS
    once, built = _bodies(llm, api, history, system=broken if where == "system" else "be brief", tools=tools)
    assert once == built and "\ufffd".encode() in once
    if where == "message":
        assert prefix_of(history, api) is kept  # nothing kept from a failed encoding


@pytest.mark.parametrize("api", OPENAI)
def test_the_body_stays_the_same_after_a_compaction_and_a_branch_switch(
    tmp_path: Path, llm: ScriptedLLMServer, api: Api
) -> None:
    manager = SessionManager.create(tmp_path, tmp_path / "sessions")
    entries = [manager.append_message(message) for message in _turns()]
    loop_history = manager.build_context().messages
    assert _bodies(llm, api, loop_history)[0] == _bodies(llm, api, loop_history)[1]
    manager.append_compaction("the summary", first_kept_entry_id=entries[8].id, tokens_before=1000)
    manager.append_message(UserMessage(content="after the compaction"))
    compacted = manager.build_context().messages
    assert _kept(compacted, api) == 0
    assert _bodies(llm, api, compacted)[0] == _bodies(llm, api, compacted)[1]
    manager.branch(entries[3].id)
    manager.append_message(UserMessage(content="another branch"))
    branched = manager.build_context().messages
    once, built = _bodies(llm, api, branched)
    assert once == built and b"another branch" in once and b"after the compaction" not in once


class _Args(BaseModel):
    value: str


def _look_tool() -> AnyTool:
    async def execute(call_id: str, params: _Args, signal: AbortSignal, on_update: ToolUpdate) -> AgentToolResult:
        return AgentToolResult(content=[TextContent(text=f"saw {params.value}"), _image()])

    return AgentTool("look", "look", "look at a value", _Args, execute)


@pytest.mark.asyncio
async def test_the_agent_loop_over_chat_completions_sends_what_is_built_from_scratch(llm: ScriptedLLMServer) -> None:
    model = scripted_model(llm, "openai-completions")
    tool = _look_tool()
    config = LoopConfig(model=model, system_prompt="sys", tools=[tool], options=lambda: StreamOptions(api_key="t"))
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="looking"), ScriptedCall(name="look", arguments={"value": "a"})]),
        ScriptedTurn(blocks=[ScriptedCall(name="look", arguments={"value": "b"})]),
        ScriptedTurn(blocks=[Text(text="done")]),
        ScriptedTurn(blocks=[Text(text="again")]),
    )
    history = History()
    for prompt in ("go", "once more"):
        history = History([*history, *await _run(prompt, history, config)])
    assert [m.role for m in history][-2:] == ["user", "assistant"] and len(llm.requests) == 4
    asked = [i for i, m in enumerate(history) if m.role == "user"]
    starts = [asked[0] + 1, asked[0] + 3, asked[0] + 5, asked[1] + 1]  # the messages each request saw
    for request, end in zip(llm.requests, starts, strict=True):
        context = Context(system_prompt="sys", messages=list(history[:end]), tools=[tool.spec()])
        built = json.loads(encode_body(openai_completions.build_request(model, context, StreamOptions(api_key="t"))))
        assert request.body == built
    assert sum("Images returned by the tool calls above" in str(r.body) for r in llm.requests) == 3


async def _run(prompt: str, history: History, config: LoopConfig) -> list[Message]:
    return await run_loop([UserMessage(content=prompt)], history, config, lambda _: None, AbortController().signal)
