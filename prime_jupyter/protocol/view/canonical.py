"""The canonical JSON form of a view state: what the two folds are compared in.

The panel (`labextension/test/canonical.ts`, `viewToJSON`) and this module write a `ViewState` as the
same JSON, key for key, so one expected file per golden stream (`tests/golden/<name>.view.json`) checks
both folds. The form is the wire's (camelCase keys) with every field present: a key the wire may leave
out is written as its default (`null`, `false`, `0`, `[]`, `{}`), because "absent" and "default" mean
the same to every reader and the two folds may hold either. What the form leaves out: text signatures of
tool output text blocks (never shown) and a message's provider (`MessageView` has none).

```
{sessionId, name, runId, messages: [Message], steering: [str], followUp: [str], questions: [Question],
 notices: [{key, level, text, action}], statuses: {key: str}, widgets: {key: [str]}, usage: Usage | null,
 contextTokens, contextWindow, model: {provider, id} | null, thinkingLevel, capabilities: [str], resync,
 notified}
Message  = {key, id, role, parts: [Part], createdAt, stopReason, model, streaming, pending, usage}
Part     = {type: "text", text} | {type: "reasoning", text, redacted} | {type: "image", mimeType, data}
         | {type: "error", message, title}
         | {type: "tool-…", toolCallId, toolName, state, input, output: {content, details} | null,
            errorText, draft}
Usage    = {input, output, cacheRead, cacheWrite, totalTokens, cost: {input, output, cacheRead,
            cacheWrite, total}}
Question = {id, kind, title, message, options: [{id, label, description}], multiple, placeholder,
            default, timeoutMs, expiresAt, toolCallId}
```
"""

from __future__ import annotations

from pydantic import JsonValue

from prime_jupyter.ai.types import ImageContent, TextContent, Usage
from prime_jupyter.protocol.parts import ToolOutputData
from prime_jupyter.protocol.questions import Question
from prime_jupyter.protocol.view.state import (
    ErrorView,
    ImageView,
    MessageView,
    Notice,
    PartView,
    ReasoningView,
    TextView,
    ViewState,
)

__all__ = ["to_json"]


def to_json(state: ViewState) -> dict[str, JsonValue]:
    """The canonical JSON form of `state` (see the module docstring)."""
    model: JsonValue = None if state.model is None else {"provider": state.model.provider, "id": state.model.id}
    return {
        "sessionId": state.session_id,
        "name": state.name,
        "runId": state.run_id,
        "messages": [_message(m) for m in state.messages],
        "steering": list(state.steering),
        "followUp": list(state.follow_up),
        "questions": [_question(q) for q in state.questions],
        "notices": [_notice(n) for n in state.notices],
        "statuses": dict(state.statuses),
        "widgets": {key: list(lines) for key, lines in state.widgets.items()},
        "usage": _usage(state.usage),
        "contextTokens": state.context_tokens,
        "contextWindow": state.context_window,
        "model": model,
        "thinkingLevel": state.thinking_level,
        "capabilities": list(state.capabilities),
        "resync": state.resync,
        "notified": state.notified,
    }


def _message(message: MessageView) -> JsonValue:
    return {
        "key": message.key,
        "id": message.id,
        "role": message.role,
        "parts": [_part(p) for p in message.parts],
        "createdAt": message.created_at,
        "stopReason": message.stop_reason,
        "model": message.model,
        "streaming": message.streaming,
        "pending": message.pending,
        "usage": _usage(message.usage),
    }


def _part(part: PartView) -> JsonValue:
    if isinstance(part, TextView):
        return {"type": "text", "text": part.text}
    if isinstance(part, ReasoningView):
        return {"type": "reasoning", "text": part.text, "redacted": part.redacted}
    if isinstance(part, ImageView):
        return {"type": "image", "mimeType": part.mime_type, "data": part.data}
    if isinstance(part, ErrorView):
        return {"type": "error", "message": part.message, "title": part.title}
    return {
        "type": part.type,
        "toolCallId": part.tool_call_id,
        "toolName": part.tool_name,
        "state": part.state,
        "input": dict(part.input),
        "output": _output(part.output),
        "errorText": part.error_text,
        "draft": part.draft,
    }


def _output(output: ToolOutputData | None) -> JsonValue:
    if output is None:
        return None
    return {"content": [_block(b) for b in output.content], "details": output.details}


def _block(block: TextContent | ImageContent) -> JsonValue:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    return {"type": "image", "mimeType": block.mime_type, "data": block.data}


def _usage(usage: Usage | None) -> JsonValue:
    if usage is None:
        return None
    cost = usage.cost
    return {
        "input": usage.input,
        "output": usage.output,
        "cacheRead": usage.cache_read,
        "cacheWrite": usage.cache_write,
        "totalTokens": usage.total_tokens,
        "cost": {
            "input": cost.input,
            "output": cost.output,
            "cacheRead": cost.cache_read,
            "cacheWrite": cost.cache_write,
            "total": cost.total,
        },
    }


def _question(question: Question) -> JsonValue:
    return {
        "id": question.id,
        "kind": question.kind,
        "title": question.title,
        "message": question.message,
        "options": [{"id": o.id, "label": o.label, "description": o.description} for o in question.options],
        "multiple": question.multiple,
        "placeholder": question.placeholder,
        "default": question.default,
        "timeoutMs": question.timeout_ms,
        "expiresAt": question.expires_at,
        "toolCallId": question.tool_call_id,
    }


def _notice(notice: Notice) -> JsonValue:
    return {"key": notice.key, "level": notice.level, "text": notice.text, "action": notice.action}
