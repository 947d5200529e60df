"""What each provider puts on the wire for thinking levels, images and tool results."""

from __future__ import annotations

import json

from prime_jupyter.ai.history import History
from prime_jupyter.ai.models import Model
from prime_jupyter.ai.providers import anthropic, openai_completions, openai_responses
from prime_jupyter.ai.providers._body import writes
from prime_jupyter.ai.stream import StreamOptions
from prime_jupyter.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

BUDGET = Model(
    id="claude-haiku-4-5",
    name="h",
    api="anthropic-messages",
    provider="anthropic",
    reasoning=True,
    max_tokens=64_000,
    input=("text", "image"),
)
ADAPTIVE = BUDGET.model_copy(update={"id": "claude-sonnet-5-5", "adaptive": True})
GPT = Model(id="gpt-5.4", name="g", api="openai-responses", provider="openai", reasoning=True, input=("text", "image"))
CHAT = GPT.model_copy(update={"api": "openai-completions", "provider": "vllm"})
IMAGE = ImageContent(data="aGk=", mime_type="image/png")


def context() -> Context:
    call = ToolCall(id="call|1", name="bash", arguments={"command": "ls"})
    return Context(
        messages=[
            UserMessage(content=[TextContent(text="look"), IMAGE]),
            AssistantMessage(
                content=[call], api="anthropic-messages", provider="anthropic", model="m", stop_reason="toolUse"
            ),
            ToolResultMessage(tool_call_id="call|1", tool_name="bash", content=[TextContent(text="a.txt"), IMAGE]),
            AssistantMessage(
                content=[TextContent(text="dropped")], api="x", provider="x", model="x", stop_reason="error"
            ),
            AssistantMessage(
                content=[ToolCall(id="c2", name="bash", arguments={})],
                api="x",
                provider="x",
                model="x",
                stop_reason="toolUse",
            ),
        ]
    )


def test_anthropic_thinking_budgets_and_adaptive_effort() -> None:
    for level, budget in (("minimal", 1024), ("low", 2048), ("medium", 8192), ("high", 16384), ("xhigh", 16384)):
        body = anthropic.build_request(BUDGET, context(), StreamOptions(api_key="k", thinking=level))  # type: ignore[arg-type]
        assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
        assert body["max_tokens"] > budget  # type: ignore[operator]
    off = anthropic.build_request(BUDGET, context(), StreamOptions(api_key="k", thinking="off"))
    assert "thinking" not in off
    adaptive = anthropic.build_request(ADAPTIVE, context(), StreamOptions(api_key="k", thinking="minimal"))
    assert adaptive["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert adaptive["output_config"] == {"effort": "low"}


def test_anthropic_conversation_shape() -> None:
    messages = anthropic.build_request(BUDGET, context(), StreamOptions(api_key="k"))["messages"]
    assert isinstance(messages, list)
    roles = [m["role"] for m in messages]  # type: ignore[index]
    assert roles == ["user", "assistant", "user", "assistant", "user"]  # the failed message is left out
    result = messages[2]["content"][0]  # type: ignore[index]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "call_1"  # id made provider-safe
    assert result["content"][1]["type"] == "image"
    interrupted = messages[4]["content"][0]  # type: ignore[index]
    assert interrupted["is_error"] and "interrupted" in interrupted["content"][0]["text"]


def test_openai_reasoning_effort_and_images_after_tool_results() -> None:
    body = openai_responses.build_request(GPT, context(), StreamOptions(api_key="k", thinking="high"))
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    items = body["input"]
    assert isinstance(items, list)
    kinds = [i.get("type") or i.get("role") for i in items]  # type: ignore[union-attr]
    assert kinds[:4] == ["user", "function_call", "function_call_output", "user"]
    chat = openai_completions.build_request(CHAT, context(), StreamOptions(api_key="k", thinking="low"))
    assert chat["reasoning_effort"] == "low" and chat["max_tokens"]
    roles = [m["role"] for m in chat["messages"]]  # type: ignore[index, union-attr]
    assert roles == ["user", "assistant", "tool", "user", "assistant", "tool"]


NOTE = "[image 1: image/png, not shown: this model does not take images]"


def test_a_model_without_image_input_gets_a_note_for_each_image_on_every_api() -> None:
    """Issue 31 item 4: a session switched to a model without image input still sent its earlier images."""
    for provider, model in ((anthropic, BUDGET), (openai_responses, GPT), (openai_completions, CHAT)):
        text_only = model.model_copy(update={"input": ("text",)})
        built = json.dumps(provider.build_request(text_only, context(), StreamOptions(api_key="k")))
        history = Context(messages=History(context().messages))
        sent = b"".join(writes(provider.encode_messages_once(model, history, StreamOptions(api_key="k"))))
        again = b"".join(writes(provider.encode_messages_once(text_only, history, StreamOptions(api_key="k"))))
        assert IMAGE.data in sent.decode(), provider  # the model that takes images gets them
        for body in (built, again.decode()):
            assert IMAGE.data not in body and body.count(NOTE) == 2, provider
