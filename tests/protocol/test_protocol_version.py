"""Version checks and capability gating, seen from both sides of an upgrade."""

from __future__ import annotations

from prime_jupyter.protocol.chat_commands import ChatExportCommand
from prime_jupyter.protocol.commands import ExportCommand
from prime_jupyter.protocol.frames import QueueFrame, parse_frame
from prime_jupyter.protocol.requests import ChatNewRequest, ChatRequest
from prime_jupyter.protocol.snapshot import AttachSnapshot
from prime_jupyter.protocol.version import (
    CAP_EXPORT_IPYNB,
    CAP_SEED_MESSAGES,
    CAPABILITIES,
    PROTOCOL_VERSION,
    REVISIONS,
    SCHEMA_FINGERPRINTS,
    SCHEMA_REVISION,
    is_compatible,
    missing_capabilities,
)


def test_only_the_same_protocol_version_is_compatible() -> None:
    assert is_compatible(PROTOCOL_VERSION) and not is_compatible(PROTOCOL_VERSION + 1)
    assert not is_compatible(PROTOCOL_VERSION - 1)


def test_missing_capabilities_lists_what_the_server_lacks_in_order() -> None:
    assert missing_capabilities(["b", "a", "c"], ["a", "zz-future"]) == ["b", "c"]


def test_capability_names_are_unique() -> None:
    assert len(set(CAPABILITIES)) == len(CAPABILITIES)


def test_every_revision_is_described_and_fingerprinted() -> None:
    assert set(REVISIONS) == set(SCHEMA_FINGERPRINTS) and max(REVISIONS) == SCHEMA_REVISION


def test_new_client_old_server_checks_the_gate_before_sending_seed_messages() -> None:
    old_server_capabilities = [c for c in CAPABILITIES if c != CAP_SEED_MESSAGES]
    assert missing_capabilities([CAP_SEED_MESSAGES], old_server_capabilities) == [CAP_SEED_MESSAGES]


def test_old_server_ignores_a_field_it_does_not_know() -> None:
    request = ChatRequest.model_validate({"sessionId": "s", "message": "hi", "futureField": {"x": 1}})
    assert request.message == "hi"


def test_old_client_new_server_skips_new_frame_types_and_ignores_new_fields() -> None:
    assert parse_frame(b'{"type":"future-frame"}') is None
    assert parse_frame(b'{"type":"queue","steering":["a"],"followUp":[],"newField":1}') == QueueFrame(steering=["a"])


def test_a_bare_new_session_request_sends_no_seed_messages_key() -> None:
    assert "seedMessages" not in ChatNewRequest().model_dump(by_alias=True, exclude_defaults=True)


def test_old_client_new_server_export_commands_mean_what_they_meant() -> None:
    """Revision 4 adds `ipynb`: what an older client sends (html, jsonl, or no format) parses as before."""
    assert ExportCommand.model_validate({"type": "export"}).format == "html"
    assert ExportCommand.model_validate({"type": "export", "format": "jsonl"}).format == "jsonl"
    chat = ChatExportCommand.model_validate({"sessionId": "s", "command": "export", "path": "out.html"})
    assert chat.format is None and CAP_EXPORT_IPYNB in CAPABILITIES


def test_old_client_new_server_snapshot_fields_are_optional() -> None:
    """Revision 8 adds `earlierMessages` and `runningShells`: a snapshot without them (an older server's)
    parses, saying nothing of what it left out."""
    old = AttachSnapshot.model_validate({"state": {"sessionId": "s", "cwd": "/"}, "cursor": 3})
    assert old.earlier_messages is None and old.running_shells == []
    new = AttachSnapshot(state=old.state, earlier_messages=0).model_dump(mode="json", by_alias=True)
    assert new["earlierMessages"] == 0 and new["runningShells"] == []
