"""Messages held as transcript data: requests built from them, never changed, validated only when read."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from prime_jupyter.ai.history import History, MalformedMessageError, message_data
from prime_jupyter.ai.models import Api
from prime_jupyter.ai.providers import anthropic, openai_completions, openai_responses
from prime_jupyter.ai.stream import StreamOptions, stream
from prime_jupyter.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from prime_jupyter.sessions.entries import MessageEntry, UnknownEntry
from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text
from prime_jupyter.testing.models import APIS, scripted_model

BUILDERS = {
    "anthropic-messages": anthropic.build_request,
    "openai-completions": openai_completions.build_request,
    "openai-responses": openai_responses.build_request,
}
PIXEL = "iVBORw0KGgo="


def _assistant(*content: TextContent | ThinkingContent | ToolCall, stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(
        content=list(content),
        api="anthropic-messages",
        provider="anthropic",
        model="m",
        stop_reason=stop,  # type: ignore[arg-type]
    )


def conversation() -> list[Message]:
    """Every shape a converter handles: images, signed and unsigned thinking, parallel calls, a failed
    turn, an aborted one with an unfinished call, a result without its call, an empty text block."""
    return [
        UserMessage(content=[TextContent(text="look"), ImageContent(data=PIXEL, mime_type="image/png")]),
        _assistant(
            ThinkingContent(thinking="plan", thinking_signature="sig"),
            TextContent(text="running two", text_signature="ts"),
            ToolCall(id="call|1", name="bash", arguments={"command": "ls"}),
            ToolCall(id="c2", name="read", arguments={"path": "a.png"}),
            stop="toolUse",
        ),
        ToolResultMessage(tool_call_id="call|1", tool_name="bash", content=[TextContent(text="a.png")]),
        ToolResultMessage(
            tool_call_id="c2", tool_name="read", content=[ImageContent(data=PIXEL, mime_type="image/png")]
        ),
        _assistant(TextContent(text="half"), stop="error"),
        ToolResultMessage(tool_call_id="orphan", tool_name="bash", content=[TextContent(text="x")], is_error=True),
        _assistant(ThinkingContent(thinking="unsigned"), TextContent(text=""), TextContent(text="done")),
        UserMessage(content="again"),
        _assistant(TextContent(text="partial"), ToolCall(id="c3", name="bash", arguments={}), stop="aborted"),
        UserMessage(content="go on"),
    ]


def _written(tmp_path: Path, messages: list[Message]) -> SessionManager:
    manager = SessionManager.create(tmp_path, tmp_path / "sessions")
    for message in messages:
        manager.append_message(message)
    manager.flush_now()
    return manager


@pytest.mark.parametrize("api", APIS)
def test_a_resumed_transcript_builds_the_request_its_messages_built(
    tmp_path: Path, llm: ScriptedLLMServer, api: Api
) -> None:
    model, options = scripted_model(llm, api), StreamOptions(api_key="k")
    written = _written(tmp_path, conversation())
    resumed = SessionManager.open(written.path)  # type: ignore[arg-type]
    messages = resumed.build_context().messages
    from_models = BUILDERS[api](model, Context(system_prompt="s", messages=conversation()), options)
    from_data = BUILDERS[api](model, Context(system_prompt="s", messages=messages), options)
    assert json.dumps(from_data) == json.dumps(from_models)
    assert not any(messages._models)  # built from the transcript's data: no message was validated


def test_building_a_request_never_changes_the_messages_data(llm: ScriptedLLMServer) -> None:
    history = History()
    for message in [*conversation(), UserMessage(content=[TextContent(text="last")])]:
        history.append_data(json.loads(json.dumps(message_data(message))))
    before = json.dumps(list(history.data()))
    model, context = scripted_model(llm, "anthropic-messages"), Context(messages=history)
    first = anthropic.build_request(model, context, StreamOptions(api_key="k"))
    second = anthropic.build_request(model, context, StreamOptions(api_key="k"))
    assert json.dumps(first) == json.dumps(second) and json.dumps(first).count("cache_control") == 1
    assert json.dumps(list(history.data())) == before


def test_data_becomes_a_model_when_read_and_a_model_is_dumped_once() -> None:
    user = UserMessage(content="hi", timestamp=5)
    history = History([user])
    history.append_data(
        {"role": "assistant", "content": [{"type": "text", "text": "yo"}], "api": "a", "provider": "p", "model": "m"}
    )
    first, again = list(history.data()), list(history.data())
    assert first == [{"role": "user", "content": "hi", "timestamp": 5}, again[1]] and first[0] is again[0]
    assert history[0] is user and isinstance(history[1], AssistantMessage) and history[1].text() == "yo"
    assert history[1] is history[-1]
    copy = history.copy()
    copy.append(UserMessage(content="more"))
    assert (len(history), len(copy), len(history[1:])) == (2, 3, 1)


def test_reading_a_malformed_message_says_what_is_wrong_and_what_to_do() -> None:
    history = History()
    history.append_data({"role": "toolResult", "content": []})
    with pytest.raises(MalformedMessageError, match=r"message 1 .*toolCallId.*fix or remove that line"):
        history[0]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.asyncio
async def test_a_malformed_message_line_is_left_out_of_the_request_and_kept_in_the_file(
    tmp_path: Path, llm: ScriptedLLMServer, caplog: pytest.LogCaptureFixture, api: Api
) -> None:
    written = _written(
        tmp_path, [UserMessage(content="one"), _assistant(TextContent(text="two")), UserMessage(content="three")]
    )
    assert written.path is not None
    lines = written.path.read_text().split("\n")
    broken = json.loads(lines[2])
    broken["message"]["content"] = [{"text": "two"}]  # a block without its type: no converter can read it
    lines[2] = json.dumps(broken)
    written.path.write_text("\n".join(lines))
    resumed = SessionManager.open(written.path)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    context = Context(messages=resumed.build_context().messages)
    with caplog.at_level(logging.WARNING):
        answer = await stream(scripted_model(llm, api), context, StreamOptions(api_key="k")).result()
    assert answer.stop_reason == "stop", answer.error_message
    sent = json.dumps(llm.requests[-1].body)
    assert '"one"' in sent and '"three"' in sent and "two" not in sent
    assert "malformed message" in caplog.text and "content.0" in caplog.text
    entries = resumed.entries
    assert isinstance(entries[1], UnknownEntry) and isinstance(entries[2], MessageEntry)
    assert written.path.read_text().split("\n")[2] == lines[2]  # the line itself is never rewritten
