"""The JSON form of messages and content blocks, as `TypedDict`s that mypy checks key by key.

A message's JSON form is what its transcript line holds and what every provider converts from: the
dump of its model in `ai.types` (`model_dump(by_alias=True, exclude_none=True)`), with camelCase keys.
A resumed session's messages stay in this form (`ai.history`), so the converters read plain dicts;
these types make a misspelt key (`block["mimetype"]`) a type error instead of a `KeyError` on the
first request of someone's long session.

A key is `Required` when the model's field has no default, and for the `type`/`role` tag that
joins each union (pydantic needs the tag to pick a model, and `if block["type"] == "text":` narrows
the union to that block). Every other key is `NotRequired`: a transcript written by another version
of the format, or edited by hand, may leave a defaulted field out, so converters read those with
`.get(key, default)` and the model's default, into a typed place (`stop: StopReason =
message.get("stopReason", "stop")`, a return value, a slot of the request body): mypy types a `.get`
of a key the dict does not have as `object` without a word, and only the typed place rejects it.

A field whose value is `None` is left out of a dump; a line that holds a `null` for an optional field
anyway (`textSignature`, `errorMessage`) reads as `None` through `.get`, as a missing key does. The
data is unvalidated: a malformed line fails a converter, and the request is built again without it
(`History.drop_malformed`). `tests/ai/test_data.py` keeps these keys equal to the models' aliases
and shows mypy rejecting a misspelt one.
"""

# No `from __future__ import annotations`: TypedDict reads `NotRequired` from evaluated annotations
# only (Python 3.11), and `__required_keys__` must be right for the test that compares the models' keys.
from typing import Literal, NotRequired, TypeAlias, TypedDict

from pydantic import JsonValue

from prime_jupyter.ai.types import StopReason

__all__ = [
    "AssistantContentData",
    "AssistantMessageData",
    "CostData",
    "ImageContentData",
    "MessageData",
    "TextContentData",
    "ThinkingContentData",
    "ToolCallData",
    "ToolResultContentData",
    "ToolResultMessageData",
    "UsageData",
    "UserContentData",
    "UserMessageData",
]


class TextContentData(TypedDict):
    """`TextContent`."""

    type: Literal["text"]
    text: str
    textSignature: NotRequired[str]


class ThinkingContentData(TypedDict):
    """`ThinkingContent`; `thinkingSignature` holds the opaque data of a redacted block."""

    type: Literal["thinking"]
    thinking: str
    thinkingSignature: NotRequired[str]
    redacted: NotRequired[bool]


class ImageContentData(TypedDict):
    """`ImageContent`: base64 `data` of a `mimeType` image."""

    type: Literal["image"]
    data: str
    mimeType: str


class ToolCallData(TypedDict):
    """`ToolCall`."""

    type: Literal["toolCall"]
    id: str
    name: str
    arguments: NotRequired[dict[str, JsonValue]]


UserContentData: TypeAlias = TextContentData | ImageContentData
AssistantContentData: TypeAlias = TextContentData | ThinkingContentData | ToolCallData
ToolResultContentData: TypeAlias = TextContentData | ImageContentData


class CostData(TypedDict, total=False):
    """`Cost`: dollars per token kind."""

    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    total: float


class UsageData(TypedDict, total=False):
    """`Usage`."""

    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    totalTokens: int
    cost: CostData


class UserMessageData(TypedDict):
    """`UserMessage`."""

    role: Literal["user"]
    content: str | list[UserContentData]
    timestamp: NotRequired[int]


class AssistantMessageData(TypedDict):
    """`AssistantMessage` (a final one: a partial answer is never held as data)."""

    role: Literal["assistant"]
    content: NotRequired[list[AssistantContentData]]
    api: str
    provider: str
    model: str
    responseId: NotRequired[str]
    usage: NotRequired[UsageData]
    stopReason: NotRequired[StopReason]
    errorMessage: NotRequired[str]
    timestamp: NotRequired[int]


class ToolResultMessageData(TypedDict):
    """`ToolResultMessage`."""

    role: Literal["toolResult"]
    toolCallId: str
    toolName: str
    content: NotRequired[list[ToolResultContentData]]
    details: NotRequired[JsonValue]
    isError: NotRequired[bool]
    timestamp: NotRequired[int]


MessageData: TypeAlias = UserMessageData | AssistantMessageData | ToolResultMessageData
"""A message's JSON form, as its transcript line stores it; `role` tells which."""
