"""Session events → chat frames: a pure function with per-session state (upstream.md §2.3, fixed per D4).

One `EventMapper` per session. The server's live session feeds it every session event and fans the
frames out (ring buffer, SSE, the NDJSON stream of the run); a Python front end's `view.ViewFold` feeds
it the events of its connection and folds the frames into the same view state as the panel. It lives in
`protocol/` so that front ends, which may not import `server/`, share it. It does no I/O and reads no
clock; ids come from the `new_id` it is given, so a test can make them predictable. The frame design
(ids, order, thinking, tool input streaming) is documented in `prime_jupyter.protocol.frames`. What maps
to what:

| session event | frames |
|---|---|
| `agent_start` | `start{runId, sessionId}` (a fresh run id, known before any other frame of the run) |
| `message_start` (assistant) | `message-start{messageId: <live id>}` |
| `message_update` text / thinking delta | `text-delta` / `reasoning-delta` `{messageId, index, delta}` |
| `message_update` toolcall start / delta / end | `tool` input-streaming; `tool-input-delta`; `tool` input-available |
| `message_end` (assistant) | `message-end{messageId: <live id>, message (entry id)}`, then `usage` |
| `message_end` (user) | `message-end{messageId: <entry id>, message}` |
| `tool_execution_start` / `_update` / `_end` | `tool`: input-available; + partial output; output-available/-error |
| `agent_end` | `done{runId, sessionId, stopReason, errorMessage?}` |
| `auto_retry_*`, `compaction_*` | `retry`, `compaction` with `phase` start / end |
| `queue_update`, `session_info_changed` | `queue`, `session-info` |
| `model_changed`, `thinking_level_changed` | `model`, `thinking-level` |
| `shell_execution_start` / `_output` / `_end` | `shell` with `phase` start / output / end |
| `turn_start`, `turn_end`, `message_*` of tool results | nothing (the tool frames already said it) |

`live()` is the in-flight part of the current run (the message still streaming, the tools not
finished) for a hydration taken mid-run (`protocol.hydration.apply_live`).
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from prime_jupyter.ai.events import (
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from prime_jupyter.ai.types import AssistantMessage, ToolCall, ToolResultMessage, Usage, UserMessage
from prime_jupyter.protocol.events import (
    AgentEnd,
    AgentStart,
    AutoRetryEnd,
    AutoRetryStart,
    CompactionEnd,
    CompactionStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ModelChanged,
    Notify,
    QuestionAsked,
    QuestionResolved,
    QueueUpdate,
    SessionEvent,
    SessionInfoChanged,
    ShellExecutionEnd,
    ShellExecutionOutput,
    ShellExecutionStart,
    StatusChanged,
    ThinkingLevelChanged,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    WidgetChanged,
)
from prime_jupyter.protocol.frames import (
    ChatFrame,
    CompactionFrame,
    DoneFrame,
    MessageEndFrame,
    MessageStartFrame,
    ModelFrame,
    NotifyFrame,
    QuestionFrame,
    QuestionResolvedFrame,
    QueueFrame,
    ReasoningDeltaFrame,
    RetryFrame,
    SessionInfoFrame,
    ShellFrame,
    StartFrame,
    StatusFrame,
    TextDeltaFrame,
    ThinkingLevelFrame,
    ToolFrame,
    ToolInputDeltaFrame,
    UsageFrame,
    WidgetFrame,
)
from prime_jupyter.protocol.hydration import (
    LiveRun,
    LiveTool,
    add_usage,
    assistant_to_chat,
    context_tokens,
    finish_tool,
    user_to_chat,
)
from prime_jupyter.protocol.parts import ToolOutputData, ToolPart, tool_part_type

__all__ = ["EventMapper"]

Frames = list[ChatFrame]


def _random_id() -> str:
    return uuid.uuid4().hex[:12]


def _unknown_window(provider: str, model_id: str) -> int | None:
    return None


@dataclass
class _Stream:
    """The assistant message streaming now: its live id, the partial message, tool calls still being written."""

    id: str
    message: AssistantMessage
    writing: set[int] = field(default_factory=set)


class EventMapper:
    def __init__(
        self,
        session_id: str,
        *,
        new_id: Callable[[], str] = _random_id,
        context_window: Callable[[str, str], int | None] = _unknown_window,
        usage_total: Usage | None = None,
    ) -> None:
        """`context_window(provider, model_id)` looks up a model's window for `usage` and `model` frames;
        `usage_total` is what the session cost before this mapper (`hydration.total_usage`)."""
        self.session_id = session_id
        self.run_id: str | None = None
        self._new_id = new_id
        self._window = context_window
        self._total = usage_total or Usage()
        self._stream: _Stream | None = None
        self._tools: dict[str, LiveTool] = {}
        self._count = 0
        self._last_message_id = ""

    @property
    def usage_total(self) -> Usage:
        return self._total

    def add_to_total(self, usage: Usage) -> None:
        """Count what earlier messages cost, learnt after this mapper started (`ViewFold.add_earlier`)."""
        self._total = add_usage(self._total, usage)

    def map(self, event: SessionEvent) -> Frames:
        """The frames for one event (often none, never more than a few)."""
        match event:
            case MessageUpdate():
                return self._update(event)
            case ToolExecutionStart() | ToolExecutionUpdate() | ToolExecutionEnd():
                return self._tool(event)
            case MessageStart():
                return self._message_start(event)
            case MessageEnd():
                return self._message_end(event)
            case AgentStart():
                return self._agent_start()
            case AgentEnd():
                return self._agent_end(event)
        return self._other(event)

    def live(self) -> LiveRun | None:
        """The current run's state that is not in the transcript yet; None between runs."""
        if self.run_id is None:
            return None
        message = None
        if self._stream is not None:
            stream = self._stream
            chat = assistant_to_chat(stream.message, stream.id, streaming=stream.writing)
            message = chat.model_copy(update={"stop_reason": None})
        return LiveRun(run_id=self.run_id, message=message, tools=list(self._tools.values()))

    # --- runs -----------------------------------------------------------------------------------

    def _agent_start(self) -> Frames:
        self.run_id = f"run-{self._new_id()}"
        self._count = 0
        return [StartFrame(run_id=self.run_id, session_id=self.session_id)]

    def _agent_end(self, event: AgentEnd) -> Frames:
        last = next((m for m in reversed(event.messages) if isinstance(m, AssistantMessage)), None)
        run_id = self.run_id or f"run-{self._new_id()}"
        self.run_id, self._stream = None, None
        self._tools.clear()
        if event.messages and isinstance(event.messages[-1], ToolResultMessage):
            # Tool results the model never saw: only an abort ends a run there.
            return [DoneFrame(run_id=run_id, session_id=self.session_id, stop_reason="aborted")]
        if last is None:
            return [DoneFrame(run_id=run_id, session_id=self.session_id, stop_reason="stop")]
        error = last.error_message if last.stop_reason in ("error", "aborted") else None
        return [DoneFrame(run_id=run_id, session_id=self.session_id, stop_reason=last.stop_reason, error_message=error)]

    # --- messages -------------------------------------------------------------------------------

    def _live_id(self) -> str:
        self._count += 1
        return f"{self.run_id}-m{self._count}" if self.run_id else f"live-{self._new_id()}"

    def _message_start(self, event: MessageStart) -> Frames:
        if not isinstance(event.message, AssistantMessage):
            return []
        self._stream = _Stream(self._live_id(), event.message)
        return [MessageStartFrame(message_id=self._stream.id, created_at=event.message.timestamp)]

    def _update(self, event: MessageUpdate) -> Frames:
        frames: Frames = [] if self._stream is not None else self._message_start(MessageStart(event.message))
        stream = self._stream
        assert stream is not None
        stream.message = event.message
        inner = event.assistant_message_event
        if isinstance(inner, TextDeltaEvent):
            frames.append(TextDeltaFrame(message_id=stream.id, index=inner.content_index, delta=inner.delta))
        elif isinstance(inner, ThinkingDeltaEvent):
            frames.append(ReasoningDeltaFrame(message_id=stream.id, index=inner.content_index, delta=inner.delta))
        elif isinstance(inner, ToolCallStartEvent | ToolCallDeltaEvent | ToolCallEndEvent):
            frames.extend(self._tool_input(stream, inner))
        return frames

    def _tool_input(self, stream: _Stream, inner: ToolCallStartEvent | ToolCallDeltaEvent | ToolCallEndEvent) -> Frames:
        index = inner.content_index
        call = inner.tool_call if isinstance(inner, ToolCallEndEvent) else _block(stream.message, index)
        if call is None:
            return []
        if isinstance(inner, ToolCallDeltaEvent):
            return [ToolInputDeltaFrame(message_id=stream.id, index=index, tool_call_id=call.id, delta=inner.delta)]
        done = isinstance(inner, ToolCallEndEvent)
        (stream.writing.discard if done else stream.writing.add)(index)
        part = ToolPart(
            type=tool_part_type(call.name),
            tool_call_id=call.id,
            tool_name=call.name,
            state="input-available" if done else "input-streaming",
            input=call.arguments if done else {},
        )
        return [ToolFrame(message_id=stream.id, index=index, part=part)]

    def _message_end(self, event: MessageEnd) -> Frames:
        message = event.message
        if isinstance(message, UserMessage):
            message_id = event.entry_id or f"live-{self._new_id()}"
            return [MessageEndFrame(message_id=message_id, message=user_to_chat(message, message_id))]
        if not isinstance(message, AssistantMessage):
            return []
        live_id = self._stream.id if self._stream is not None else self._live_id()
        self._stream = None
        final_id = event.entry_id or live_id
        self._last_message_id = final_id
        chat = assistant_to_chat(message, final_id)
        for index, part in enumerate(chat.parts):
            if isinstance(part, ToolPart) and part.state == "input-available":
                self._tools[part.tool_call_id] = LiveTool(message_id=final_id, index=index, part=part)
        return [MessageEndFrame(message_id=live_id, message=chat), *self._usage(final_id, message)]

    def _usage(self, message_id: str, message: AssistantMessage) -> Frames:
        usage = message.usage
        if not (usage.input or usage.output or usage.cache_read or usage.cache_write):
            return []
        self._total = add_usage(self._total, usage)
        return [
            UsageFrame(
                message_id=message_id,
                usage=usage,
                total=self._total,
                context_tokens=context_tokens(usage),
                context_window=self._window(message.provider, message.model),
            )
        ]

    # --- tools ----------------------------------------------------------------------------------

    def _tool(self, event: ToolExecutionStart | ToolExecutionUpdate | ToolExecutionEnd) -> Frames:
        live = self._tools.get(event.tool_call_id) or self._orphan(event.tool_call_id, event.tool_name)
        part = live.part
        if isinstance(event, ToolExecutionStart):
            part = part.model_copy(update={"state": "input-available", "input": event.args})
        elif isinstance(event, ToolExecutionUpdate):
            output = ToolOutputData(content=list(event.partial_result.content), details=event.partial_result.details)
            part = part.model_copy(update={"output": output})
        else:
            part = finish_tool(part, event.result.content, event.result.details, event.is_error)
        live = live.model_copy(update={"part": part})
        if isinstance(event, ToolExecutionEnd):
            self._tools.pop(event.tool_call_id, None)
        else:
            self._tools[event.tool_call_id] = live
        return [ToolFrame(message_id=live.message_id, index=live.index, part=part)]

    def _orphan(self, tool_call_id: str, tool_name: str) -> LiveTool:
        """A tool running without a call we saw (a mapper created mid-run): attach it to the last message."""
        part = ToolPart(
            type=tool_part_type(tool_name), tool_call_id=tool_call_id, tool_name=tool_name, state="input-available"
        )
        return LiveTool(message_id=self._last_message_id, part=part)

    # --- everything else ------------------------------------------------------------------------

    def _other(self, event: SessionEvent) -> Frames:
        match event:
            case AutoRetryStart(attempt, max_attempts, delay_ms, error_message):
                return [
                    RetryFrame(
                        phase="start",
                        attempt=attempt,
                        max_attempts=max_attempts,
                        delay_ms=delay_ms,
                        error_message=error_message,
                    )
                ]
            case AutoRetryEnd(success, attempt, final_error):
                return [RetryFrame(phase="end", attempt=attempt, success=success, final_error=final_error)]
            case CompactionStart(reason):
                return [CompactionFrame(phase="start", reason=reason)]
            case CompactionEnd():
                return [_compaction_end(event)]
            case QueueUpdate(steering, follow_up):
                return [QueueFrame(steering=list(steering), follow_up=list(follow_up))]
            case SessionInfoChanged(name):
                return [SessionInfoFrame(name=name)]
            case ModelChanged(provider, model_id):
                window = self._window(provider, model_id)
                return [ModelFrame(provider=provider, id=model_id, context_window=window)]
            case QuestionAsked(question):
                return [QuestionFrame.model_validate(question.model_dump())]
            case QuestionResolved(question_id, answer, cancelled):
                return [QuestionResolvedFrame(id=question_id, answer=answer, cancelled=cancelled)]
            case Notify(message, level):
                return [NotifyFrame(level=level, message=message)]
            case StatusChanged(key, text):
                return [StatusFrame(key=key, text=text)]
            case WidgetChanged(key, lines):
                return [WidgetFrame(key=key, lines=lines)]
            case ThinkingLevelChanged(level):
                return [ThinkingLevelFrame(level=level)]
            case ShellExecutionStart() | ShellExecutionOutput() | ShellExecutionEnd():
                return [_shell_frame(event)]
        return []


def _block(message: AssistantMessage, index: int) -> ToolCall | None:
    block = message.content[index] if 0 <= index < len(message.content) else None
    return block if isinstance(block, ToolCall) else None


def _shell_frame(event: ShellExecutionStart | ShellExecutionOutput | ShellExecutionEnd) -> ShellFrame:
    if isinstance(event, ShellExecutionStart):
        return ShellFrame(
            phase="start",
            execution_id=event.execution_id,
            command=event.command,
            include_in_context=event.include_in_context,
        )
    if isinstance(event, ShellExecutionOutput):
        return ShellFrame(
            phase="output", execution_id=event.execution_id, chunk=event.chunk, skipped=event.skipped or None
        )
    return ShellFrame.model_validate({**dataclasses.asdict(event), "phase": "end", "type": "shell"})


def _compaction_end(event: CompactionEnd) -> CompactionFrame:
    return CompactionFrame(
        phase="end",
        reason=event.reason,
        aborted=event.aborted,
        will_retry=event.will_retry,
        error_message=event.error_message,
        summary=event.summary,
        tokens_before=event.tokens_before,
    )
