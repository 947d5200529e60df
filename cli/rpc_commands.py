"""The commands of `--mode rpc`: one JSON line read as a connection `Command`, and carried out.

The vocabulary is the connection's own (`prime_jupyter.protocol.commands`), parsed by the same pydantic
models the connection routes use. The original system's names (upstream.md §8.5) are taken where ours
differ: `clone` is `clone_session`, `export_html` is `export` in HTML (`outputPath`: `path`),
`set_session_name` is `rename_session`, `switch_session`'s `sessionPath` is `session`, and
`streamingBehavior` may be `followUp`. `get_commands` and `get_available_models` are read from the
connection without a command model of their own.
"""

from __future__ import annotations

import functools
import json
import typing
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pydantic import JsonValue, TypeAdapter, ValidationError

from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.commands import run_common_command
from prime_jupyter.connection.types import AgentConnectionUnsupportedError
from prime_jupyter.protocol.codec import to_wire
from prime_jupyter.protocol.commands import (
    AnswerQuestionCommand,
    CloneSessionCommand,
    Command,
    DeleteSessionCommand,
    ExportCommand,
    ForkCommand,
    InterruptKernelCommand,
    ListSessionsCommand,
    NavigateTreeCommand,
    NewSessionCommand,
    RenameSessionCommand,
    RestartKernelCommand,
    RewindCommand,
    SetLabelCommand,
    SwitchSessionCommand,
)
from prime_jupyter.protocol.snapshot import OkResult
from prime_jupyter.protocol.wire import WireModel, dump

__all__ = ["BadCommand", "ReadCommand", "RequestId", "carry_out", "read_command"]

RequestId: TypeAlias = str | int
"""A command's `id`, echoed in its response."""

ALIASES = {"clone": "clone_session", "export_html": "export", "set_session_name": "rename_session"}
"""The original system's command names that are ours under another name."""

Read: TypeAlias = Literal["get_commands", "get_available_models"]
READS: tuple[Read, ...] = ("get_commands", "get_available_models")
"""Commands answered from the connection without a `Command` model."""


class BadCommand(Exception):
    """A line that is no command we can carry out; `id` and `command` as far as the line told them."""

    def __init__(self, message: str, request_id: RequestId | None = None, command: str = "parse") -> None:
        super().__init__(message)
        self.request_id = request_id
        self.command = command


@dataclass(frozen=True, slots=True)
class ReadCommand:
    """A command line, read: its `id`, its `type` as the client wrote it, and what to carry out."""

    request_id: RequestId | None
    name: str
    command: Command | Read


@functools.cache
def _commands() -> TypeAdapter[Command]:
    return TypeAdapter(Command)


@functools.cache
def command_names() -> tuple[str, ...]:
    """Every `type` a line may have."""
    union = typing.get_args(typing.get_args(Command)[0])  # Annotated[A | B | ..., Field(...)]
    ours = [model.model_fields["type"].default for model in union]
    return tuple(sorted({*ours, *ALIASES, *READS}))


def read_command(line: bytes) -> ReadCommand:
    """One line of stdin as a command; `BadCommand` saying what is wrong with it."""
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadCommand(f'not JSON ({exc}): send one JSON object a line, e.g. {{"type": "get_state"}}') from None
    if not isinstance(data, dict):
        raise BadCommand(f'a command is a JSON object, e.g. {{"type": "get_state"}}, not {type(data).__name__}')
    request_id = data.pop("id", None)
    if request_id is not None and (not isinstance(request_id, str | int) or isinstance(request_id, bool)):
        raise BadCommand("id: a string or an integer")
    name = data.get("type")
    if not isinstance(name, str):
        raise BadCommand('type: missing (the command\'s name, e.g. "prompt")', request_id)
    if name in READS:
        return ReadCommand(request_id, name, next(r for r in READS if r == name))
    if name not in command_names():
        known = ", ".join(command_names())
        raise BadCommand(f"unknown command {name!r}; the commands: {known}", request_id, name)
    try:
        command = _commands().validate_python(_ours(name, data))
    except ValidationError as exc:
        raise BadCommand(_fields_wrong(exc), request_id, name) from None
    return ReadCommand(request_id, name, command)


def _ours(name: str, data: dict[str, object]) -> dict[str, object]:
    """The command in our names (`ALIASES`, and the original system's field names and values)."""
    data["type"] = ALIASES.get(name, name)
    if data.get("streamingBehavior") == "followUp":
        data["streamingBehavior"] = "follow_up"
    if name == "switch_session" and "session" not in data and "sessionPath" in data:
        data["session"] = data.pop("sessionPath")
    if name == "export_html":
        data["format"] = "html"
        if "path" not in data and "outputPath" in data:
            data["path"] = data.pop("outputPath")
    return data


def _fields_wrong(exc: ValidationError) -> str:
    wrong = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"][1:])  # the first part is the command's type
        wrong.append(f"{where or 'command'}: {error['msg'].lower()}")
    return "; ".join(wrong)


async def carry_out(connection: AgentConnection, read: ReadCommand) -> JsonValue:
    """The command's result as JSON (its `COMMAND_RESULTS` model); `PrimeError` or `ValueError` when the
    session refuses it."""
    command = read.command
    if command == "get_commands":
        try:
            listed = connection.extensions.commands()
        except AgentConnectionUnsupportedError:  # a session in a server: the built-in ones
            from prime_jupyter.connection.extensions import BUILTIN_COMMANDS

            listed = list(BUILTIN_COMMANDS)
        return {"commands": to_wire(listed)}
    if command == "get_available_models":
        return dump(await connection.get_available_models())
    return dump(await _run(connection, command))


async def _run(connection: AgentConnection, command: Command) -> WireModel:
    if isinstance(command, AnswerQuestionCommand):
        if not await connection.answer_question(command.question_id, command.answer):
            raise ValueError(f"question {command.question_id} is not pending (answered, or cancelled)")
        return OkResult()
    common = await run_common_command(connection, command)
    return common if common is not None else await _run_session_command(connection, command)


async def _run_session_command(connection: AgentConnection, command: Command) -> WireModel:
    match command:
        case NewSessionCommand(seed_messages=seed):
            return await connection.new_session(seed or None)
        case SwitchSessionCommand(session=ref):
            return await connection.switch_session(ref)
        case ForkCommand(entry_id=entry_id, position=position):
            return await connection.fork(entry_id, position)
        case CloneSessionCommand():
            return await connection.clone()
        case NavigateTreeCommand(target_id=target, summarize=summarize, custom_instructions=instructions):
            return await connection.navigate_tree(target, summarize, instructions)
        case RewindCommand(entry_id=entry_id):
            return await connection.rewind(entry_id)
        case ListSessionsCommand(scope=scope):
            return await connection.list_sessions(scope)
        case RenameSessionCommand(name=name, session_id=session_id):
            await connection.rename_session(name, session_id)
        case DeleteSessionCommand(session_id=session_id):
            await connection.delete_session(session_id)
        case ExportCommand(format=fmt, path=path):
            return await connection.export(fmt, path)
        case SetLabelCommand(entry_id=entry_id, label=label):
            await connection.set_label(entry_id, label)
        case InterruptKernelCommand():
            await connection.interrupt_kernel()
        case RestartKernelCommand():
            await connection.restart_kernel()
    return OkResult()
