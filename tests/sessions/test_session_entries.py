from __future__ import annotations

import json
import typing
from pathlib import Path

from kit.sessions import make_assistant, make_result

from prime_jupyter.ai.types import ImageContent, TextContent, ThinkingContent, ToolCall, UserMessage
from prime_jupyter.sessions.entries import (
    KNOWN_ENTRY_TYPES,
    BranchSummaryEntry,
    BranchSummaryMessage,
    CompactionEntry,
    CompactionSummaryMessage,
    CustomEntry,
    CustomMessage,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    PermissionModeChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UnknownEntry,
)
from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.sessions.store import encode_line


def _wire(record: typing.Any) -> dict[str, typing.Any]:
    return json.loads(encode_line(record))


def test_header_is_camel_case_with_version_3() -> None:
    header = SessionHeader(id="abc", cwd="/w", parent_session="/s/p.jsonl")
    assert _wire(header) == {
        "type": "session",
        "version": 3,
        "id": "abc",
        "timestamp": header.timestamp,
        "cwd": "/w",
        "parentSession": "/s/p.jsonl",
    }


def test_root_entry_writes_parent_id_null() -> None:
    wire = _wire(ModelChangeEntry(id="a1", parent_id=None, provider="p", model_id="m"))
    assert list(wire)[:4] == ["type", "id", "parentId", "timestamp"] and wire["parentId"] is None


def test_clearing_label_writes_label_null() -> None:
    assert _wire(LabelEntry(id="l", parent_id="a", target_id="a", label=None))["label"] is None


def test_known_entry_types_match_the_union() -> None:
    members = typing.get_args(typing.get_args(SessionEntry)[0])
    assert {m.model_fields["type"].default for m in members} == KNOWN_ENTRY_TYPES


def test_every_entry_type_round_trips_through_a_file(tmp_path: Path) -> None:
    manager = SessionManager.create(tmp_path, tmp_path / "s")
    user = UserMessage(content=[TextContent(text="look"), ImageContent(data="aGk=", mime_type="image/png")])
    call = ToolCall(id="c1", name="ipython", arguments={"code": "1+1", "opts": {"n": [1, None]}})
    assistant = make_assistant("thinking done", calls=(call,))
    assistant.content.insert(0, ThinkingContent(thinking="hmm", thinking_signature="sig"))
    written = [
        manager.append_message(user),
        manager.append_message(assistant),
        manager.append_message(make_result("c1", "2")),
        manager.append_message(CustomMessage(custom_type="note", content="hi", display=False, details={"k": 1})),
        manager.append_message(BranchSummaryMessage(summary="b", from_id="x")),
        manager.append_message(CompactionSummaryMessage(summary="c", tokens_before=9)),
        manager.append_model_change("openai", "gpt"),
        manager.append_thinking_level_change("high"),
        manager.append_permission_mode_change("accept-edits"),
        manager.append_compaction("sum", first_kept_entry_id=manager.entries[1].id, tokens_before=5, details={"a": []}),
        manager.append_branch_summary("zz", "went elsewhere"),
        manager.append_label(manager.entries[0].id, "start"),
        manager.append_label(manager.entries[0].id, None),
        manager.append_session_info("named"),
        manager.append_custom("ext", {"state": [1, 2]}),
    ]
    assert manager.path is not None
    loaded = SessionManager.open(manager.path)
    assert list(loaded.entries) == written


def test_entry_classes_cover_every_known_type() -> None:
    classes = [
        MessageEntry,
        ModelChangeEntry,
        ThinkingLevelChangeEntry,
        PermissionModeChangeEntry,
        CompactionEntry,
        BranchSummaryEntry,
        LabelEntry,
        SessionInfoEntry,
        CustomEntry,
    ]
    assert {c.model_fields["type"].default for c in classes} == KNOWN_ENTRY_TYPES


def test_unknown_entry_keeps_every_field() -> None:
    raw = {"type": "service_tier_change", "id": "e1", "parentId": "e0", "timestamp": "t", "serviceTier": "flex"}
    assert _wire(UnknownEntry.model_validate(raw)) == raw
