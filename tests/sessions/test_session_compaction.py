from __future__ import annotations

from pathlib import Path

from kit.sessions import make_assistant, make_result, make_user

from prime_jupyter.ai.types import ImageContent, TextContent, ThinkingContent, ToolCall, UserMessage
from prime_jupyter.sessions.compaction import (
    estimate_context_tokens,
    estimate_tokens,
    find_cut_point,
    prepare_compaction,
    serialize_for_summary,
    should_compact,
    summary_request,
)
from prime_jupyter.sessions.entries import AnyEntry, MessageEntry
from prime_jupyter.sessions.manager import SessionManager

WORDS_400 = "x" * 1600  # 400 estimated tokens


def _call(call_id: str, name: str = "ipython", **args: str) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=dict(args))


def _role(entry: AnyEntry) -> str:
    assert isinstance(entry, MessageEntry)
    return entry.message.role


def _tool_heavy(tmp_path: Path, turns: int = 4) -> SessionManager:
    """Turns of: user, assistant with a call, a big tool result, a final assistant answer."""
    manager = SessionManager.in_memory(tmp_path)
    for turn in range(turns):
        manager.append_message(make_user(f"task {turn}"))
        manager.append_message(make_assistant("working", calls=(_call(f"c{turn}", code="1"),)))
        manager.append_message(make_result(f"c{turn}", WORDS_400))
        manager.append_message(make_assistant(f"done {turn}"))
    return manager


def test_estimate_tokens_counts_text_calls_and_images() -> None:
    assert estimate_tokens(make_user("abcdefgh")) == 2
    image = UserMessage(content=[ImageContent(data="", mime_type="image/png")])
    assert estimate_tokens(image) == 1200
    call = make_assistant("", calls=(_call("c", code="print(1)"),))
    assert estimate_tokens(call) == -(-(len("ipython") + len('{"code": "print(1)"}')) // 4)


def test_should_compact_when_the_reserve_is_eaten() -> None:
    assert should_compact(90_000, 100_000, 16_384) and not should_compact(80_000, 100_000, 16_384)


def test_context_tokens_use_the_last_usage_plus_later_estimates() -> None:
    messages = [make_user("q"), make_assistant("a"), make_user("abcdefgh")]
    assert estimate_context_tokens(messages) == 15 + 2


def test_cut_point_is_never_a_tool_result(tmp_path: Path) -> None:
    path = _tool_heavy(tmp_path).entries
    for keep in range(1, 2000, 37):
        assert _role(path[find_cut_point(path, keep)]) != "toolResult"


def test_cut_point_moves_back_to_the_call_of_a_tool_result(tmp_path: Path) -> None:
    path = _tool_heavy(tmp_path).entries
    cut = find_cut_point(path, keep_recent_tokens=402)  # the budget is crossed at the last tool result
    assert _role(path[14]) == "toolResult" and cut == 13 and _role(path[cut]) == "assistant"


def test_cut_point_keeps_everything_when_it_fits(tmp_path: Path) -> None:
    assert find_cut_point(_tool_heavy(tmp_path).entries, keep_recent_tokens=100_000) == 0


def test_cut_point_keeps_settings_entries_just_before_it(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(make_user(WORDS_400))
    manager.append_message(make_assistant(WORDS_400))
    manager.append_model_change("openai", "gpt")
    manager.append_message(make_user(WORDS_400))
    assert find_cut_point(manager.entries, keep_recent_tokens=400) == 2


def test_prepare_compaction_summarises_up_to_the_cut(tmp_path: Path) -> None:
    manager = _tool_heavy(tmp_path)
    prep = prepare_compaction(manager, keep_recent_tokens=821)  # crossed at the third task's user message
    assert prep is not None and not prep.is_split_turn
    assert prep.first_kept_entry_id == manager.entries[8].id
    assert [m.role for m in prep.messages_to_summarize] == ["user", "assistant", "toolResult", "assistant"] * 2
    assert prep.previous_summary is None and prep.tokens_before == 15 + 0


def test_prepare_compaction_flags_a_split_turn(tmp_path: Path) -> None:
    manager = _tool_heavy(tmp_path)
    prep = prepare_compaction(manager, keep_recent_tokens=405)  # cut at the last turn's tool call
    assert prep is not None and prep.is_split_turn and prep.first_kept_entry_id == manager.entries[13].id
    assert [m.role for m in prep.turn_prefix_messages] == ["user"]
    assert len(prep.messages_to_summarize) == 12


def test_nothing_to_compact_in_a_short_session(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(make_user("hi"))
    manager.append_message(make_assistant("hello"))
    assert prepare_compaction(manager) is None


def test_second_compaction_starts_at_the_kept_boundary_and_tracks_files(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(make_user("read it"))
    manager.append_message(make_assistant("ok", calls=(_call("r", "read", path="a.py"),)))
    manager.append_message(make_result("r", WORDS_400, "read"))
    kept = manager.append_message(make_user("now edit"))
    manager.append_message(make_assistant("ok", calls=(_call("e", "edit", path="b.py"),)))
    manager.append_message(make_result("e", WORDS_400, "edit"))
    first = prepare_compaction(manager, keep_recent_tokens=407)
    assert first is not None and first.first_kept_entry_id == kept.id
    manager.append_compaction("S1", first.first_kept_entry_id, first.tokens_before, first.details())
    manager.append_message(make_user(WORDS_400))
    manager.append_message(make_assistant("ok", calls=(_call("w", "write", path="a.py"),)))
    manager.append_message(make_user(WORDS_400))
    second = prepare_compaction(manager, keep_recent_tokens=400)
    assert second is not None and second.previous_summary == "S1"
    assert [m.role for m in second.messages_to_summarize][:3] == ["user", "assistant", "toolResult"]
    assert (second.read_files, second.modified_files) == ([], ["a.py", "b.py"])
    assert first.read_files == ["a.py"]


def test_serialize_for_summary_labels_each_part() -> None:
    assistant = make_assistant("answer", calls=(_call("c", "read", path="a.py"),))
    assistant.content.insert(0, ThinkingContent(thinking="pondering"))
    text = serialize_for_summary([make_user("question"), assistant, make_result("c", "r" * 2500)])
    assert text.split("\n\n")[:4] == [
        "[User]: question",
        "[Assistant thinking]: pondering",
        "[Assistant]: answer",
        '[Assistant tool calls]: read(path="a.py")',
    ]
    assert f"[Tool result]: {'r' * 2000}\n\n[... 500 more characters truncated]" in text


def test_summary_request_uses_the_update_prompt_with_a_previous_summary() -> None:
    request = summary_request([make_user("q")], previous_summary="OLD", custom_instructions="focus")
    assert "<previous-summary>\nOLD\n</previous-summary>" in request and request.endswith("Also focus on: focus")
    for section in ("## Goal", "## Constraints & Preferences", "### Blocked", "## Next Steps", "## Critical Context"):
        assert section in request


def test_summary_of_user_content_blocks_joins_text() -> None:
    message = UserMessage(content=[TextContent(text="a"), ImageContent(data="", mime_type="image/png")])
    assert serialize_for_summary([message]) == "[User]: a"
