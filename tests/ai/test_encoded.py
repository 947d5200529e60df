"""Request messages encoded once (`providers._encoded`): the body is byte for byte the one built from
scratch, turn after turn, after a compaction and after a branch switch, and only new messages are
converted."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_history import conversation

from prime_jupyter.ai.history import History
from prime_jupyter.ai.providers import anthropic
from prime_jupyter.ai.providers._encoded import prefix_of
from prime_jupyter.ai.providers._request import encode_body, encode_request
from prime_jupyter.ai.stream import StreamOptions
from prime_jupyter.ai.types import (
    AssistantMessage,
    Context,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.testing import ScriptedLLMServer
from prime_jupyter.testing.models import scripted_model

OPTIONS = StreamOptions(api_key="k")
TOOLS = [ToolSpec(name="bash", description="run", parameters={"type": "object", "properties": {"messages": {}}})]


def _bodies(llm: ScriptedLLMServer, messages: History) -> tuple[bytes, bytes]:
    """(the body encoded once, the body built from scratch) for `messages`."""
    model = scripted_model(llm, "anthropic-messages")
    context = Context.model_construct(system_prompt="be brief", messages=messages, tools=TOOLS)
    once = encode_request(anthropic.encode_messages_once, model, context, OPTIONS)
    sent = once if isinstance(once, bytes) else b"".join(once)
    return sent, encode_body(anthropic.build_request(model, context, OPTIONS))


def _kept(history: History) -> int:
    """How many of its first messages `history` holds encoded (for the next request to reuse)."""
    return prefix_of(history, "anthropic-messages").count


def _turns() -> list[Message]:
    """`conversation()` then a few tool turns, as the agent loop appends them."""
    out = conversation()
    for i in range(3):
        call = ToolCall(id=f"t{i}", name="bash", arguments={"command": f"echo {i}"})
        asked = AssistantMessage(content=[call], api="anthropic-messages", provider="p", model="m")
        asked.stop_reason = "toolUse"
        out.append(asked)
        out.append(ToolResultMessage(tool_call_id=f"t{i}", tool_name="bash", content=[TextContent(text=str(i))]))
    return out


def test_every_turns_body_is_the_one_built_from_scratch_and_reuses_the_turns_before(llm: ScriptedLLMServer) -> None:
    history, kept = History(), []
    for count, message in enumerate(_turns(), start=1):
        history.append(message)
        once, built = _bodies(llm, history)
        assert once == built, f"after {count} messages"
        assert once.count(b"cache_control") == 3  # system, last tool and the newest user turn
        kept.append(_kept(history))
    assert kept[-2] == len(history) - 2  # a call waiting for its result: kept up to the call
    assert kept[-1] == len(history)


def test_a_copy_keeps_the_encoded_prefix_and_each_copy_grows_its_own(llm: ScriptedLLMServer) -> None:
    history = History(_turns())
    _bodies(llm, history)
    first, second = history.copy(), history.copy()
    first.append(UserMessage(content="first"))
    second.append(UserMessage(content="second"))
    for copy in (first, second):
        once, built = _bodies(llm, copy)
        assert once == built and _kept(copy) == len(copy)
    assert _kept(history[:3]) == 0 and _kept(history[2:]) == 0  # too short a prefix; not a prefix


def test_the_body_stays_the_same_after_a_compaction_and_a_branch_switch(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    manager = SessionManager.create(tmp_path, tmp_path / "sessions")
    entries = [manager.append_message(message) for message in _turns()]
    loop_history = manager.build_context().messages
    assert _bodies(llm, loop_history)[0] == _bodies(llm, loop_history)[1]
    manager.append_compaction("the summary", first_kept_entry_id=entries[8].id, tokens_before=1000)
    manager.append_message(UserMessage(content="after the compaction"))
    compacted = manager.build_context().messages
    assert _kept(compacted) == 0
    assert _bodies(llm, compacted)[0] == _bodies(llm, compacted)[1]
    manager.branch(entries[3].id)
    manager.append_message(UserMessage(content="another branch"))
    branched = manager.build_context().messages
    once, built = _bodies(llm, branched)
    assert once == built and b"another branch" in once and b"after the compaction" not in once


@pytest.mark.parametrize("text", ["broken \ud800 output", "fine"])
def test_a_lone_surrogate_builds_the_whole_body_the_old_way(llm: ScriptedLLMServer, text: str) -> None:
    history = History([UserMessage(content="a"), UserMessage(content=text)])
    once, built = _bodies(llm, history)
    assert once == built


def test_a_long_run_keeps_few_chunks_and_a_retry_marks_the_kept_user_turn(llm: ScriptedLLMServer) -> None:
    history = History(conversation())
    for i in range(300):
        call = ToolCall(id=f"t{i}", name="bash", arguments={"command": f"echo {i}"})
        history.append(AssistantMessage(content=[call], api="anthropic-messages", provider="p", model="m"))
        history.append(ToolResultMessage(tool_call_id=f"t{i}", tool_name="bash", content=[TextContent(text=str(i))]))
        once, built = _bodies(llm, history)
        assert once == built, f"turn {i}"
    assert len(prefix_of(history, "anthropic-messages").chunks) <= 12  # not one piece per message
    once, built = _bodies(llm, history)  # a retry: nothing new, the cache point is on a kept chunk
    assert once == built and once.count(b"cache_control") == 3
