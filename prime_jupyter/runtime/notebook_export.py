"""A session as a notebook (`.ipynb`): prompts and answers as Markdown cells, `ipython` calls as code cells
with their outputs, provenance (session, transcript entry, model) in each cell's metadata under `prime`.

Pure: messages in, the JSON of an nbformat 4.5 notebook out (valid per `nbformat.validate`). It depends
only on the message types and lives below the front ends, so every surface exports through the one
`export` command of the connection (`runtime.export.export_session`): the panel, the terminal app,
`%prime export` and `Session.export` alike.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence

from pydantic import JsonValue

from prime_jupyter.ai.types import AssistantMessage, Message, TextContent, ToolCall, ToolResultMessage, UserMessage
from prime_jupyter.notebooks.cells import nbformat_output

__all__ = ["session_notebook"]

Cell = dict[str, JsonValue]


def session_notebook(messages: Sequence[Message], entry_ids: Sequence[str], *, session_id: str) -> Cell:
    """The notebook of a session's messages (`entry_ids[i]` is the transcript entry of `messages[i]`)."""
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolResultMessage)}
    cells: list[JsonValue] = []
    for message, entry in zip(messages, [*entry_ids, *[None] * len(messages)], strict=False):
        base: dict[str, JsonValue] = {"session": session_id, "entry": entry}
        if isinstance(message, UserMessage):
            text = message.content if isinstance(message.content, str) else _texts(message.content)
            cells.append(_markdown(f"**Prompt**\n\n{text}", {**base, "role": "user"}))
        elif isinstance(message, AssistantMessage):
            provenance = {**base, "role": "assistant", "model": f"{message.provider}/{message.model}"}
            cells.extend(_assistant_cells(message, results, provenance))
    metadata: Cell = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
        "prime": {"session": session_id},
    }
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}


def _assistant_cells(
    message: AssistantMessage, results: dict[str, ToolResultMessage], provenance: dict[str, JsonValue]
) -> list[Cell]:
    cells: list[Cell] = []
    pending: list[str] = []
    for part in message.content:
        if isinstance(part, TextContent):
            pending.append(part.text)
            continue
        if not isinstance(part, ToolCall):
            continue
        if pending:
            cells.append(_markdown("".join(pending), provenance))
            pending = []
        cells.append(_tool_cell(part, results.get(part.id), provenance))
    if pending:
        cells.append(_markdown("".join(pending), provenance))
    if message.stop_reason in ("error", "aborted"):
        cells.append(_markdown(f"*{message.error_message or message.stop_reason}*", provenance))
    return cells


def _tool_cell(call: ToolCall, result: ToolResultMessage | None, provenance: dict[str, JsonValue]) -> Cell:
    metadata: dict[str, JsonValue] = {**provenance, "tool": call.name, "toolCallId": call.id}
    code = call.arguments.get("code")
    if call.name == "ipython" and isinstance(code, str):
        details = result.details if result is not None and isinstance(result.details, dict) else {}
        count = details.get("executionCount")
        outputs: list[JsonValue] = [o for o in map(nbformat_output, _outputs(details)) if o is not None]
        return {
            "cell_type": "code", "id": _cell_id(), "metadata": {"prime": metadata}, "source": code,
            "outputs": outputs, "execution_count": count if isinstance(count, int) else None,
        }  # fmt: skip
    arguments = json.dumps(call.arguments, indent=1, ensure_ascii=False)
    answer = _texts(result.content) if result is not None else "(no result)"
    return _markdown(f"`{call.name}`\n\n```json\n{arguments}\n```\n\n```\n{answer}\n```", metadata)


def _outputs(details: dict[str, JsonValue]) -> list[dict[str, JsonValue]]:
    outputs = details.get("outputs")
    listed = outputs if isinstance(outputs, list) else []
    return [o for o in listed if isinstance(o, dict)]


def _markdown(text: str, provenance: dict[str, JsonValue]) -> Cell:
    return {"cell_type": "markdown", "id": _cell_id(), "metadata": {"prime": provenance}, "source": text}


def _cell_id() -> str:
    return uuid.uuid4().hex[:12]


def _texts(parts: Sequence[object]) -> str:
    return "".join(part.text for part in parts if isinstance(part, TextContent))
