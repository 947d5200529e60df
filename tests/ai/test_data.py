"""The typed JSON form of messages: its keys are the models' keys, and mypy checks them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import mypy.api
import pytest
from pydantic import BaseModel

from prime_jupyter.ai import data
from prime_jupyter.ai.history import message_data
from prime_jupyter.ai.types import (
    AssistantMessage,
    Cost,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

PAIRS: list[tuple[type, type[BaseModel], str | None]] = [
    (data.TextContentData, TextContent, "type"),
    (data.ThinkingContentData, ThinkingContent, "type"),
    (data.ImageContentData, ImageContent, "type"),
    (data.ToolCallData, ToolCall, "type"),
    (data.CostData, Cost, None),
    (data.UsageData, Usage, None),
    (data.UserMessageData, UserMessage, "role"),
    (data.AssistantMessageData, AssistantMessage, "role"),
    (data.ToolResultMessageData, ToolResultMessage, "role"),
]


@pytest.mark.parametrize(("typed", "model", "tag"), PAIRS, ids=[p[1].__name__ for p in PAIRS])
def test_each_typed_dict_has_the_keys_its_model_dumps(typed: type, model: type[BaseModel], tag: str | None) -> None:
    fields = model.model_fields.values()
    assert typed.__required_keys__ | typed.__optional_keys__ == {f.alias for f in fields}
    required = {f.alias for f in fields if f.is_required()} | ({tag} if tag else set())
    assert typed.__required_keys__ == required


def test_a_dumped_message_uses_only_the_typed_keys() -> None:
    message = AssistantMessage(
        content=[TextContent(text="a", text_signature="s"), ThinkingContent(thinking="t"), ToolCall(id="1", name="n")],
        api="a",
        provider="p",
        model="m",
        response_id="r",
        error_message="e",
    )
    dumped = message_data(message)
    assert set(dumped) == data.AssistantMessageData.__required_keys__ | data.AssistantMessageData.__optional_keys__


def _mypy(tmp_path: Path, body: str) -> tuple[str, int]:
    """mypy --strict on a snippet that imports `ai.data`, and on that module only (not the package)."""
    snippet = tmp_path / "snippet.py"
    snippet.write_text("from prime_jupyter.ai.data import ImageContentData, MessageData\n" + textwrap.dedent(body))
    out, err, status = mypy.api.run(
        [
            "--strict",
            "--config-file=",  # neither the project's configuration nor its plugins: this checks one snippet
            "--no-incremental",
            f"--cache-dir={tmp_path / 'mypy-cache'}",  # not the project's cache, which other options made
            "--follow-imports=skip",  # what `ai.data` imports is Any here: only its keys are under test
            "--no-error-summary",
            str(snippet),
            data.__file__,
        ]
    )
    return out + err, status


def test_mypy_rejects_a_misspelt_key_of_the_typed_data(tmp_path: Path) -> None:
    out, status = _mypy(
        tmp_path,
        """
        def url(image: ImageContentData) -> str:
            return f"data:{image['mimetype']};base64,{image['data']}"

        def failed(message: MessageData) -> bool:
            if message["role"] != "assistant":
                return False
            stop: str = message.get("stopreason", "stop")  # read into a typed place, as converters do
            return stop == "error"
        """,
    )
    assert 'TypedDict "ImageContentData" has no key "mimetype"' in out, out
    assert status == 1 and 'expression has type "object", variable has type "str"' in out, out


def test_mypy_rejects_a_key_of_another_role_until_the_role_is_checked(tmp_path: Path) -> None:
    out, status = _mypy(
        tmp_path,
        """
        def call_id(message: MessageData) -> str:
            return message["toolCallId"]
        """,
    )
    assert status == 1 and 'has no key "toolCallId"' in out, out


def test_mypy_accepts_the_right_keys_and_narrows_on_the_role(tmp_path: Path) -> None:
    out, status = _mypy(
        tmp_path,
        """
        def url(image: ImageContentData) -> str:
            return f"data:{image['mimeType']};base64,{image['data']}"

        def call_id(message: MessageData) -> str | None:
            return message["toolCallId"] if message["role"] == "toolResult" else None

        def failed(message: MessageData) -> bool:
            if message["role"] != "assistant":
                return False
            stop: str = message.get("stopReason", "stop")
            return stop == "error"
        """,
    )
    assert status == 0, out
