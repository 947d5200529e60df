"""Chat frames folded into view state: the Python twin of `labextension/src/model.ts`.

`apply_frame(state, frame)` is pure (no I/O, no clock) and mirrors model.ts's `applyFrame` case for case,
so the panel and the Python front ends draw the same conversation from the same frames; the golden
streams in `tests/golden/` pin both folds to one expected view state each (`canonical.to_json`).
`from_session` builds the state of a session from its `chat/session` hydration, like `fromSession`:
folding the frames after its `cursor` then gives the state of having watched them live.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from operator import attrgetter
from typing import TypeVar

from prime_jupyter.protocol.common import ModelRef
from prime_jupyter.protocol.frames import (
    ChatFrame,
    CompactionFrame,
    ConnectedFrame,
    DoneFrame,
    ErrorFrame,
    MessageEndFrame,
    MessageStartFrame,
    ModelFrame,
    NotifyFrame,
    QuestionFrame,
    QuestionResolvedFrame,
    QueueFrame,
    ReasoningDeltaFrame,
    ResyncRequiredFrame,
    RetryFrame,
    SessionInfoFrame,
    StartFrame,
    StatusFrame,
    TextDeltaFrame,
    ThinkingLevelFrame,
    ToolFrame,
    ToolInputDeltaFrame,
    UsageFrame,
    WidgetFrame,
)
from prime_jupyter.protocol.parts import ChatMessage, TextPart
from prime_jupyter.protocol.questions import Question
from prime_jupyter.protocol.requests import ChatSessionResponse
from prime_jupyter.protocol.view import messages as ops
from prime_jupyter.protocol.view.notices import add_notify, compaction_notice, put_notice, retry_notice
from prime_jupyter.protocol.view.state import MessageView, Notice, ToolView, ViewState

__all__ = [
    "add_local_message",
    "apply_frame",
    "apply_frames",
    "dismiss_notice",
    "fail_local",
    "from_session",
    "is_running",
    "last_user_text",
    "latest_kernel_id",
    "question_for",
]

_V = TypeVar("_V")


def from_session(response: ChatSessionResponse, previous: ViewState | None = None) -> ViewState:
    """The state of a session as `chat/session` returned it (its messages include the live run).

    With the `previous` state of the same session (a resync), messages keep their render keys: by id,
    and for the message that was streaming (or sent and not yet confirmed) by position, since its id
    changed since."""
    live = response.live
    streaming_id = live.message.id if live is not None and live.message is not None else None
    same = previous.messages if previous is not None and previous.session_id == response.session.session_id else ()
    messages = tuple(
        dataclasses.replace(ops.message_view(m, _carried_key(same, m, i)), streaming=m.id == streaming_id)
        for i, m in enumerate(response.messages)
    )
    return ViewState(
        session_id=response.session.session_id,
        name=response.session.name,
        messages=messages,
        run_id=live.run_id if live is not None else None,
        steering=tuple(response.steering),
        follow_up=tuple(response.follow_up),
        questions=tuple(response.pending_questions),
        usage=response.usage,
        context_tokens=response.context_tokens,
        context_window=response.context_window,
        model=response.model,
        thinking_level=response.thinking_level,
        capabilities=previous.capabilities if previous is not None else (),
    )


def _carried_key(previous: tuple[MessageView, ...], message: ChatMessage, index: int) -> str:
    before = previous[index] if index < len(previous) else None
    if (
        before is not None
        and before.role == message.role
        and (before.id == message.id or before.streaming or before.pending)
    ):
        return before.key
    return next((m.key for m in previous if m.id == message.id), message.id)


def is_running(state: ViewState) -> bool:
    """Whether a run is going on."""
    return state.run_id is not None


def add_local_message(state: ViewState, local_id: str, text: str, now: int) -> ViewState:
    """Add the optimistic copy of a message this client is sending (`local_id` is the client's own id)."""
    message = dataclasses.replace(
        ops.message_view(ChatMessage(id=local_id, role="user", parts=[TextPart(text=text)], created_at=now)),
        pending=True,
    )
    return dataclasses.replace(state, messages=(*state.messages, message))


def fail_local(state: ViewState, message: str) -> ViewState:
    """Drop optimistic messages (their request failed) and show why, offering to retry."""
    notice = Notice("error", "error", message, "retry")
    kept = tuple(m for m in state.messages if not m.pending)
    return dataclasses.replace(state, messages=kept, notices=put_notice(state.notices, notice))


def dismiss_notice(state: ViewState, key: str) -> ViewState:
    """Remove the notice with `key`."""
    return dataclasses.replace(state, notices=tuple(n for n in state.notices if n.key != key))


def _with_record(record: Mapping[str, _V], key: str, value: _V | None) -> dict[str, _V]:
    copy = dict(record)
    if value is None:
        copy.pop(key, None)
    else:
        copy[key] = value
    return copy


_STATE_FIELDS = attrgetter(*ViewState.__slots__)
_MESSAGES = ViewState.__slots__.index("messages")


def _with_messages(state: ViewState, messages: tuple[MessageView, ...]) -> ViewState:
    """`state` with other messages: `dataclasses.replace`, at half its cost (it runs once per delta)."""
    fields = list(_STATE_FIELDS(state))
    fields[_MESSAGES] = messages
    return ViewState(*fields)


def apply_frame(state: ViewState, frame: ChatFrame) -> ViewState:
    """The state after one frame. Frames of another session must not be passed in."""
    replace = dataclasses.replace
    match frame:
        case TextDeltaFrame():
            messages = ops.append_delta(state.messages, frame.message_id, frame.index, False, frame.delta)
            return _with_messages(state, messages)
        case ReasoningDeltaFrame():
            messages = ops.append_delta(state.messages, frame.message_id, frame.index, True, frame.delta)
            return _with_messages(state, messages)
        case ToolInputDeltaFrame():
            messages = ops.append_tool_input(
                state.messages, frame.message_id, frame.index, frame.tool_call_id, frame.delta
            )
            return _with_messages(state, messages)
        case StartFrame():
            return replace(state, session_id=frame.session_id, run_id=frame.run_id, resync=None)
        case MessageStartFrame():
            started = ops.streaming_message(frame.message_id, frame.created_at)
            return replace(state, messages=(*state.messages, started))
        case ToolFrame():
            return replace(state, messages=ops.upsert_tool(state.messages, frame.message_id, frame.index, frame.part))
        case MessageEndFrame():
            return replace(state, messages=ops.end_message(state.messages, frame.message_id, frame.message))
        case UsageFrame():
            return replace(
                state,
                messages=ops.set_usage(state.messages, frame.message_id, frame.usage),
                usage=frame.total,
                context_tokens=frame.context_tokens,
                context_window=frame.context_window if frame.context_window is not None else state.context_window,
            )
        case DoneFrame():
            return replace(state, run_id=None, messages=ops.stop_streaming(state.messages), steering=(), follow_up=())
        case ErrorFrame():
            ended = frame.run_id and frame.run_id == state.run_id
            return fail_local(replace(state, run_id=None) if ended else state, frame.message)
    return _apply_side_frame(state, frame)


def _apply_side_frame(state: ViewState, frame: ChatFrame) -> ViewState:
    """Frames that do not touch the messages."""
    replace = dataclasses.replace
    match frame:
        case RetryFrame():
            notice = retry_notice(frame)
            return (
                replace(state, notices=put_notice(state.notices, notice)) if notice else dismiss_notice(state, "retry")
            )
        case CompactionFrame():
            return replace(state, notices=put_notice(state.notices, compaction_notice(frame)))
        case QueueFrame():
            return replace(state, steering=tuple(frame.steering), follow_up=tuple(frame.follow_up))
        case QuestionFrame():
            if any(q.id == frame.id for q in state.questions):
                return state
            return replace(state, questions=(*state.questions, _question_of(frame)))
        case QuestionResolvedFrame():
            return replace(state, questions=tuple(q for q in state.questions if q.id != frame.id))
        case NotifyFrame():
            count = state.notified + 1
            return replace(state, notified=count, notices=add_notify(state.notices, count, frame.level, frame.message))
        case StatusFrame():
            return replace(state, statuses=_with_record(state.statuses, frame.key, frame.text))
        case WidgetFrame():
            lines = tuple(frame.lines) if frame.lines is not None else None
            return replace(state, widgets=_with_record(state.widgets, frame.key, lines))
        case SessionInfoFrame():
            return replace(state, name=frame.name)
        case ModelFrame():
            window = frame.context_window if frame.context_window is not None else state.context_window
            return replace(state, model=ModelRef(provider=frame.provider, id=frame.id), context_window=window)
        case ThinkingLevelFrame():
            return replace(state, thinking_level=frame.level)
        case ResyncRequiredFrame():
            return replace(state, resync=frame.reason)
        case ConnectedFrame():
            return replace(state, capabilities=tuple(frame.capabilities))
    return state


def _question_of(frame: QuestionFrame) -> Question:
    return Question.model_validate(frame.model_dump(exclude={"type"}))


def apply_frames(state: ViewState, frames: Iterable[ChatFrame]) -> ViewState:
    """Fold many frames."""
    for frame in frames:
        state = apply_frame(state, frame)
    return state


def last_user_text(state: ViewState) -> str | None:
    """The text of the last user message (what "retry" sends again), or None."""
    for message in reversed(state.messages):
        if message.role == "user":
            return ops.first_text(message.parts)
    return None


def latest_kernel_id(state: ViewState) -> str | None:
    """The id of the kernel the agent's IPython tool last ran in (from its result details), or None."""
    for message in reversed(state.messages):
        for part in reversed(message.parts):
            details = part.output.details if isinstance(part, ToolView) and part.output is not None else None
            kernel_id = details.get("kernelId") if isinstance(details, dict) else None
            if isinstance(kernel_id, str):
                return kernel_id
    return None


def question_for(state: ViewState, tool_call_id: str) -> Question | None:
    """The pending question asked by tool call `tool_call_id`, if any."""
    return next((q for q in state.questions if q.tool_call_id == tool_call_id), None)
