"""Requests, chat commands and connection commands parse from their camelCase JSON."""

from __future__ import annotations

from typing import get_args

import pytest
from pydantic import TypeAdapter, ValidationError

from prime_jupyter.protocol.chat_commands import (
    ChatCommandRequest,
    ChatCommandResponse,
    ChatForkCommand,
    ForkResult,
    TreeResult,
)
from prime_jupyter.protocol.commands import (
    AnswerQuestionCommand,
    Command,
    ForkCommand,
    NewSessionCommand,
    PromptCommand,
)
from prime_jupyter.protocol.connection_routes import ConnectionOutbound, SessionEventMessage, SessionReplacedMessage
from prime_jupyter.protocol.questions import ConfirmAnswer
from prime_jupyter.protocol.requests import (
    ChatRequest,
    QuestionAnswerRequest,
    RenameSessionRequest,
    SeedMessage,
)
from prime_jupyter.protocol.snapshot import COMMAND_RESULTS, AttachSnapshot, ConnectionState
from prime_jupyter.protocol.wire import dump

COMMANDS: TypeAdapter[Command] = TypeAdapter(Command)


def test_chat_request_reads_camel_case() -> None:
    request = ChatRequest.model_validate(
        {"sessionId": "s", "message": "go", "streamingBehavior": "followUp", "model": {"provider": "p", "id": "m"}}
    )
    assert (request.streaming_behavior, request.model and request.model.id) == ("followUp", "m")


def test_chat_request_rejects_an_unknown_streaming_behavior() -> None:
    with pytest.raises(ValidationError):
        ChatRequest.model_validate({"sessionId": "s", "message": "go", "streamingBehavior": "later"})


def test_renaming_to_an_empty_name_is_rejected() -> None:
    with pytest.raises(ValidationError):
        RenameSessionRequest(session_id="s", name="")


def test_a_question_answer_without_answer_dismisses() -> None:
    request = QuestionAnswerRequest.model_validate({"sessionId": "s", "questionId": "q"})
    assert request.answer is None
    confirmed = QuestionAnswerRequest.model_validate(
        {"sessionId": "s", "questionId": "q", "answer": {"kind": "confirm", "confirmed": False}}
    )
    assert confirmed.answer == ConfirmAnswer(confirmed=False)


def test_chat_commands_are_discriminated_by_command() -> None:
    command = TypeAdapter(ChatCommandRequest).validate_python({"sessionId": "s", "command": "fork", "entryId": "e"})
    assert command == ChatForkCommand(session_id="s", entry_id="e", position="before")


def test_chat_command_results_parse_with_one_union() -> None:
    results = TypeAdapter(list[ChatCommandResponse]).validate_python(
        [{"command": "fork", "sessionId": "new"}, {"command": "tree", "nodes": [], "leafId": None}]
    )
    assert [type(r) for r in results] == [ForkResult, TreeResult]


def test_connection_commands_parse_from_json() -> None:
    parsed = COMMANDS.validate_json(b'{"type":"prompt","message":"hi","streamingBehavior":"steer","id":"1"}')
    assert parsed == PromptCommand(id="1", message="hi", streaming_behavior="steer")
    listed = TypeAdapter(list[Command]).validate_python(
        [
            {"type": "fork", "entryId": "e", "position": "at"},
            {"type": "new_session", "seedMessages": [{"role": "user", "text": "x"}]},
            {"type": "answer_question", "questionId": "q"},
        ]
    )
    assert listed == [
        ForkCommand(entry_id="e", position="at"),
        NewSessionCommand(seed_messages=[SeedMessage(role="user", text="x")]),
        AnswerQuestionCommand(question_id="q"),
    ]


def test_every_command_type_has_a_result_model() -> None:
    types = {member.model_fields["type"].default for member in get_args(get_args(Command)[0])}
    assert types == set(COMMAND_RESULTS)


def test_connection_outbound_carries_events_and_snapshots() -> None:
    snapshot = AttachSnapshot(state=ConnectionState(session_id="s", cwd="/w"), cursor=3)
    messages = TypeAdapter(list[ConnectionOutbound]).validate_python(
        [
            {"type": "session_event", "event": {"type": "agent_start"}},
            dump(SessionReplacedMessage(snapshot=snapshot)),
            {"type": "notify", "message": "hi"},
        ]
    )
    assert isinstance(messages[0], SessionEventMessage) and messages[0].event == {"type": "agent_start"}
    assert isinstance(messages[1], SessionReplacedMessage) and messages[1].snapshot == snapshot
