"""The session operations every host shares (`runtime.session_ops`): one meaning for fork, clone,
seeding, cwd resolution, thinking levels and export paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prime_jupyter.ai.models import Model
from prime_jupyter.ai.types import AssistantMessage, UserMessage
from prime_jupyter.errors import OutsideRootError
from prime_jupyter.protocol.common import session_name
from prime_jupyter.protocol.requests import SeedMessage
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.runtime.session_ops import (
    clone_transcript,
    export_format,
    export_target,
    fork_transcript,
    parse_thinking_level,
    resolve_cwd,
    seed_session,
    seed_transcript,
    thinking_level,
)
from prime_jupyter.sessions.entries import MessageEntry
from prime_jupyter.sessions.listing import list_sessions
from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.testing import ScriptedLLMServer


def make_session(tmp_path: Path, llm: ScriptedLLMServer) -> AgentSession:
    home = tmp_path / "agent"
    home.mkdir(exist_ok=True)
    provider = {
        "baseUrl": llm.base_url,
        "api": "anthropic-messages",
        "apiKey": "k",
        "models": [{"id": "m1", "contextWindow": 100_000, "maxTokens": 4096}],
    }
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "settings.json").write_text("{}")
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return create_agent_session(SessionOptions(cwd=work, model="scripted/m1", tools=["read"], agent_dir=home))


def texts(manager: SessionManager) -> list[tuple[str, str]]:
    return [(e.message.role, e.message.text()) for e in manager.entries if isinstance(e, MessageEntry)]


def seeds(*pairs: tuple[str, str]) -> list[SeedMessage]:
    return [SeedMessage.model_validate({"role": role, "text": text}) for role, text in pairs]


# --- thinking levels ------------------------------------------------------------------------------


def test_a_thinking_level_is_named_exactly() -> None:
    assert thinking_level("high") == "high"
    assert thinking_level("HIGH") is None


def test_parsing_a_thinking_level_names_the_field_it_came_from() -> None:
    assert parse_thinking_level(None) is None
    assert parse_thinking_level("off", "thinkingLevel") == "off"
    with pytest.raises(ValueError, match=r"^thinkingLevel: unknown thinking level 'huge'$"):
        parse_thinking_level("huge", "thinkingLevel")
    with pytest.raises(ValueError, match=r"^unknown thinking level 'huge'$"):
        parse_thinking_level("huge")


# --- working directories --------------------------------------------------------------------------


def test_a_named_cwd_is_relative_to_the_root(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    assert resolve_cwd(tmp_path, "project") == (tmp_path / "project").resolve()
    assert resolve_cwd(tmp_path, str(tmp_path / "project")) == (tmp_path / "project").resolve()


def test_no_cwd_is_the_default_else_the_root(tmp_path: Path) -> None:
    beside = tmp_path / "beside"
    assert resolve_cwd(tmp_path, None) == tmp_path
    assert resolve_cwd(tmp_path, "", default=beside) == beside  # the source session's, taken as it is


def test_a_cwd_that_is_no_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    for name in ("missing", "file"):
        with pytest.raises(ValueError, match=rf"^cwd: '{name}' is not a directory$"):
            resolve_cwd(tmp_path, name, default=tmp_path)


# --- seeding --------------------------------------------------------------------------------------


def test_a_seeded_session_is_written_at_once_with_its_models_answers(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    seed_session(session, seeds(("user", "hi"), ("assistant", "hello")))
    assert session.transcript_path is not None and session.transcript_path.exists()
    reopened = SessionManager.open(session.transcript_path)
    assert texts(reopened) == [("user", "hi"), ("assistant", "hello")]
    answer = next(e.message for e in reopened.entries if isinstance(e, MessageEntry) and e.message.role == "assistant")
    assert isinstance(answer, AssistantMessage) and (answer.provider, answer.model) == ("scripted", "m1")
    listed = list_sessions(tmp_path / "agent" / "sessions", None)
    assert [info.id for info in listed] == [session.session_id]


def test_a_session_without_seeds_is_written_too(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    seed_session(session, [])
    assert session.transcript_path is not None and session.transcript_path.exists()


def test_a_transcript_made_before_its_session_is_seeded_with_the_given_model(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(tmp_path)
    model = Model(id="m2", name="m2", api="openai-completions", provider="other", base_url="http://localhost")
    seed_transcript(manager, seeds(("assistant", "ready")), model)
    (entry,) = [e for e in manager.entries if isinstance(e, MessageEntry)]
    assert isinstance(entry.message, AssistantMessage) and entry.message.model == "m2"


# --- fork and clone -------------------------------------------------------------------------------


def conversation(session: AgentSession) -> list[str]:
    """Entry ids of a two-exchange conversation appended to the session's transcript."""
    model = session.model
    ids: list[str] = []
    for text in ("first", "second"):
        ids.append(session.manager.append_message(UserMessage(content=text)).id)
        answer = AssistantMessage(api=model.api, provider=model.provider, model=model.id, content=[])
        ids.append(session.manager.append_message(answer).id)
    return ids


def test_a_fork_is_written_beside_its_source_which_is_left_as_it_was(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    ids = conversation(session)
    before = len(session.manager.entries)
    fork = fork_transcript(session, ids[2], "before", tmp_path / "agent" / "sessions")
    assert fork.selected_text == "second"
    assert fork.session_id != session.session_id and fork.manager.path is not None and fork.manager.path.exists()
    assert texts(SessionManager.open(fork.manager.path)) == [("user", "first"), ("assistant", "")]
    assert len(session.manager.entries) == before and session.manager.leaf_id == ids[-1]
    assert fork.manager.header.parent_session == str(session.transcript_path)


def test_a_fork_at_an_entry_keeps_it(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    ids = conversation(session)
    fork = fork_transcript(session, ids[2], "at")
    assert fork.selected_text is None
    assert [role for role, _ in texts(fork.manager)] == ["user", "assistant", "user"]
    assert fork.manager.path is not None and fork.manager.path.parent == tmp_path / "agent" / "sessions"


def test_a_clone_holds_the_whole_branch(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    conversation(session)
    clone = clone_transcript(session)
    assert clone.manager.path is not None and clone.manager.path.exists()
    assert texts(SessionManager.open(clone.manager.path)) == texts(session.manager)


# --- export ---------------------------------------------------------------------------------------


def test_the_export_format_follows_the_request_then_the_path() -> None:
    assert export_format("html", "out.jsonl") == "html"
    assert export_format(None, "out.jsonl") == "jsonl"
    assert export_format(None, "out.txt") == "html"
    assert export_format(None, None) == "html"


def test_an_export_path_is_relative_to_the_sessions_directory(tmp_path: Path) -> None:
    assert export_target(tmp_path, "out/chat.html") == str(tmp_path / "out" / "chat.html")
    assert export_target(str(tmp_path), "/elsewhere/chat.html") == "/elsewhere/chat.html"
    assert export_target(tmp_path, None) is None


@pytest.mark.parametrize(("path", "says"), [("a\0b", "NUL byte"), ("x" * 300, "limit is 255"), ("\ud800", "no file")])
def test_a_path_no_file_system_can_hold_is_a_value_error_naming_its_field(tmp_path: Path, path: str, says: str) -> None:
    """Issue 15: these raised `ValueError: embedded null byte` / `OSError: File name too long` deep inside."""
    with pytest.raises(ValueError, match=rf"^cwd: .*{says}"):
        resolve_cwd(tmp_path, path)
    with pytest.raises(ValueError, match=rf"^path: .*{says}"):
        export_target(tmp_path, path)


def test_paths_are_confined_only_when_asked(tmp_path: Path) -> None:
    """The server confines its requests to its root (issue 15); a terminal or a notebook does not."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "out").symlink_to(tmp_path, target_is_directory=True)
    assert resolve_cwd(root, "..") == tmp_path
    assert export_target(root, "../x.html") == str(root / ".." / "x.html")
    for name in ("..", "out", "/"):
        with pytest.raises(OutsideRootError, match=rf"^cwd: '{name}' is outside the server's root"):
            resolve_cwd(root, name, confined_to=root)
        with pytest.raises(OutsideRootError, match=r"^path: .* is outside the server's root"):
            export_target(root, f"{name}/x.html", confined_to=root)


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("chat\n.html", "control character"),
        ("chat\r.html", "control character"),
        ("   ", "spaces only"),
        ("out/  /chat.html", "spaces only"),
        ("out/", "ends in a slash"),
        ("out/chat.html/", "ends in a slash"),
    ],
)
def test_an_odd_export_name_is_refused_naming_the_rule(tmp_path: Path, path: str, says: str) -> None:
    """Regression (issue 27, item 6): these were written as given."""
    with pytest.raises(ValueError, match=rf"^path: .*{says}"):
        export_target(tmp_path, path)
    assert not list(tmp_path.iterdir())


def test_a_session_name_cannot_hold_a_control_character() -> None:
    """Regression (issue 27, item 6): a NUL was kept in the name."""
    with pytest.raises(ValueError, match="control character"):
        session_name("my\0session")
    assert session_name(" my\n\tsession ") == "my session"  # whitespace is folded, not refused
