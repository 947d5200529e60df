"""Tool part types (the seed's toPascalCase rule) and the chat part union."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from prime_jupyter.protocol.parts import ChatMessage, ChatPart, ReasoningPart, TextPart, ToolPart, tool_part_type


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ipython", "tool-IPython"),
        ("bash", "tool-Bash"),
        ("edit", "tool-Edit"),
        ("read", "tool-Read"),
        ("write", "tool-Write"),
        ("thinking", "tool-Thinking"),
        ("WebSearch", "tool-WebSearch"),
        ("fetch_url", "tool-FetchURL"),
        ("notebook-edit", "tool-NotebookEdit"),
        ("ls", "tool-LS"),
        ("run sql", "tool-RUNSQL"),
        ("todoWrite", "tool-TodoWrite"),
        ("mcp__github__create_issue", "tool-mcp__github__create_issue"),
    ],
)
def test_tool_part_type_follows_the_seed_rule(name: str, expected: str) -> None:
    assert tool_part_type(name) == expected


def test_parts_parse_to_their_own_kinds() -> None:
    parts = TypeAdapter(list[ChatPart]).validate_python(
        [
            {"type": "text", "text": "a"},
            {"type": "reasoning", "text": "b"},
            {"type": "tool-Bash", "toolCallId": "c", "toolName": "bash", "state": "input-available"},
        ]
    )
    assert [type(p) for p in parts] == [TextPart, ReasoningPart, ToolPart]


def test_a_part_of_unknown_type_is_rejected() -> None:
    with pytest.raises(ValidationError):
        TypeAdapter(ChatPart).validate_python({"type": "video", "url": "x"})


def test_a_tool_part_keeps_null_values_inside_its_input() -> None:
    part = ToolPart(type="tool-X", tool_call_id="c", tool_name="x", state="input-available", input={"a": None})
    message = ChatMessage(id="m", role="assistant", parts=[part])
    assert '"input":{"a":null}' in message.model_dump_json(by_alias=True, exclude_none=True)
