"""Provider-neutral clean-up of a conversation before it is converted to any wire format.

It works on the messages' JSON form (`ai.data`), as every converter does:

- assistant messages that failed (`stopReason == "error"`) are left out: they were retried or reported;
- an aborted assistant message keeps its text but loses unfinished tool calls;
- every remaining tool call gets a result (a synthetic error result when the run was interrupted), and
  results without a call are dropped, because every provider rejects either mismatch;
- for a model that does not take images, each image (of a user message or a tool result, sent before
  the session switched models) becomes the note a tool's output gives it (`models.image_not_shown`).

The data is never changed in place: a message that needs cleaning is copied.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from prime_jupyter.ai.data import (
    AssistantContentData,
    AssistantMessageData,
    ImageContentData,
    MessageData,
    TextContentData,
    ToolCallData,
    ToolResultMessageData,
)
from prime_jupyter.ai.models import image_not_shown
from prime_jupyter.ai.types import StopReason

__all__ = ["INTERRUPTED_RESULT", "Normalizer", "normalize_messages", "safe_tool_id"]

INTERRUPTED_RESULT = "No result: the tool call was interrupted before it finished."
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def safe_tool_id(call_id: str, limit: int = 64) -> str:
    """A tool-call id every provider accepts (letters, digits, '_' and '-', bounded length)."""
    if call_id and len(call_id) <= limit and _UNSAFE.search(call_id) is None:
        return call_id
    cleaned = _UNSAFE.sub("_", call_id)
    return cleaned[:limit] or "call"


def normalize_messages(messages: Iterable[MessageData], images: bool = True) -> Iterator[MessageData]:
    """The cleaned conversation (see the module docstring), one message at a time; `images`: whether the
    model takes images.

    A generator, so that a provider converts each message while it is still in the CPU's caches: on a
    long history that is a fifth of the conversion time.
    """
    normalizer = Normalizer(images)
    for message in messages:
        yield from normalizer.push(message)
    yield from normalizer.finish()


class Normalizer:
    """`normalize_messages` fed one message at a time, for a converter that resumes where it stopped.

    When `quiet` (no tool call waits for its result), what follows is cleaned the same whether or not
    the messages before were fed to this normalizer: a fresh one can take over there.
    """

    __slots__ = ("_images", "_pending")

    def __init__(self, images: bool = True) -> None:
        self._pending: dict[str, ToolCallData] = {}  # the latest assistant message's calls still waiting
        self._images = images

    @property
    def quiet(self) -> bool:
        return not self._pending

    def push(self, message: MessageData) -> list[MessageData]:
        """What `message` adds to the cleaned conversation (the results of interrupted calls first)."""
        pending = self._pending
        if not self._images and message["role"] != "assistant":
            message = _without_images(message)
        if message["role"] == "toolResult":
            return [message] if pending.pop(message["toolCallId"], None) is not None else []
        out: list[MessageData] = _interrupted(pending) if pending else []  # type: ignore[assignment]
        if message["role"] == "assistant":
            cleaned = _clean_assistant(message)
            if cleaned is not None:
                out.append(cleaned)
                for block in cleaned.get("content", ()):
                    if block["type"] == "toolCall":
                        pending[block["id"]] = block
        else:
            out.append(message)
        return out

    def finish(self) -> list[ToolResultMessageData]:
        """The results of the calls still waiting (interrupted): the end of the cleaned conversation."""
        return _interrupted(self._pending)


def _without_images(message: MessageData) -> MessageData:
    """`message` (user or tool result) with each image replaced by its note; itself when it has none."""
    content = message.get("content")
    if isinstance(content, str) or not content or all(block["type"] != "image" for block in content):
        return message
    blocks: list[TextContentData | ImageContentData] = []
    number = 0
    for block in content:
        if block["type"] == "image":
            number += 1
            blocks.append({"type": "text", "text": image_not_shown(f"image {number}: {block['mimeType']}")})
        else:
            blocks.append(block)  # type: ignore[arg-type]
    copy: MessageData = {**message, "content": blocks}  # type: ignore[assignment]
    return copy


def _clean_assistant(message: AssistantMessageData) -> AssistantMessageData | None:
    stop_reason: StopReason = message.get("stopReason", "stop")
    if stop_reason == "error":
        return None
    if stop_reason != "aborted":
        return message
    kept: list[AssistantContentData] = [block for block in message.get("content", ()) if block["type"] != "toolCall"]
    if not any(block["type"] == "text" and block["text"] for block in kept):
        return None
    copy: AssistantMessageData = {**message, "content": kept}
    return copy


def _interrupted(pending: dict[str, ToolCallData]) -> list[ToolResultMessageData]:
    """Error results for the calls still pending, which are then no longer pending."""
    results: list[ToolResultMessageData] = [
        {
            "role": "toolResult",
            "toolCallId": call["id"],
            "toolName": call["name"],
            "content": [{"type": "text", "text": INTERRUPTED_RESULT}],
            "isError": True,
        }
        for call in pending.values()
    ]
    pending.clear()
    return results
