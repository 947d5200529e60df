"""Session events folded into view state, for the Python front ends (the terminal app, notebooks).

A front end on an `AgentConnection` receives session events, not chat frames. `ViewFold` holds the
session's `EventMapper` (`prime_jupyter.protocol.mapper`, the one the server uses for the panel) and its
view state: each event becomes frames, and each frame is folded by `apply_frame`, the twin of the
panel's fold. So the panel, the terminal app and notebooks draw the same conversation from the same
events, and the golden streams check all three.

`ViewFold.from_snapshot` starts from what `AgentConnection.get_snapshot()` returns (an attach): the
transcript, the message still streaming and the pending questions, then folds the events that follow.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence

from prime_jupyter.ai.types import AssistantMessage, Message, ToolCall, ToolResultMessage, UserMessage
from prime_jupyter.protocol.events import AgentStart, MessageStart, SessionEvent, ToolExecutionStart
from prime_jupyter.protocol.frames import ReasoningDeltaFrame, TextDeltaFrame
from prime_jupyter.protocol.hydration import add_usage, apply_live, hydrate, total_usage
from prime_jupyter.protocol.mapper import EventMapper
from prime_jupyter.protocol.snapshot import AttachSnapshot
from prime_jupyter.protocol.turns import TurnCut
from prime_jupyter.protocol.view.fold import apply_frame
from prime_jupyter.protocol.view.messages import message_view
from prime_jupyter.protocol.view.state import MessageView, ViewState, empty_state

__all__ = ["ViewFold"]


class ViewFold:
    """The view state of one session, kept up to date from its session events.

    `state` is the current view (immutable: each event makes a new one). A front end may set it too, to
    apply the pure helpers of `fold` (an optimistic `add_local_message`, `dismiss_notice`)."""

    def __init__(self, mapper: EventMapper, state: ViewState | None = None) -> None:
        self.mapper = mapper
        self.state = state if state is not None else empty_state(mapper.session_id)
        self._earlier: tuple[Sequence[Message], Sequence[str]] = ((), ())
        self.earlier = 0
        """How many messages of the snapshot's transcript, before those in `state`, are not folded yet
        (`from_snapshot(tail=...)`); `unfold_earlier` folds them."""

    def apply_event(self, event: SessionEvent) -> ViewState:
        """Fold one session event (the frames the mapper makes of it, in order); the new state."""
        state = self.state
        for frame in self.mapper.map(event):
            state = apply_frame(state, frame)
        self.state = state
        return state

    def apply_events(self, events: Iterable[SessionEvent]) -> ViewState:
        """Fold several events; the new state. Consecutive text (or reasoning) deltas of one part are
        folded as one delta: the state is the same as folded one by one, built once. One by one, a
        20,000-delta answer took 270 ms to fold here (13 us a delta, a new message view and state each,
        the growing text copied each time), most of what the terminal app spent on it."""
        state = self.state
        run: list[str] = []
        first: TextDeltaFrame | ReasoningDeltaFrame | None = None
        for event in events:
            for frame in self.mapper.map(event):
                if isinstance(frame, TextDeltaFrame | ReasoningDeltaFrame):
                    if first is not None and _same_part(first, frame):
                        run.append(frame.delta)
                        continue
                    state = _fold_run(state, first, run)
                    first, run = frame, [frame.delta]
                else:
                    state = apply_frame(_fold_run(state, first, run), frame)
                    first, run = None, []
        self.state = _fold_run(state, first, run)
        return self.state

    @classmethod
    def from_snapshot(
        cls,
        snapshot: AttachSnapshot,
        *,
        new_id: Callable[[], str] | None = None,
        context_window: Callable[[str, str], int | None] | None = None,
        tail: int | None = None,
    ) -> ViewFold:
        """The fold of a session as `snapshot` shows it, ready for the events after it.

        `context_window(provider, model_id)` gives the window that `usage` and `model` frames carry; by
        default the snapshot's window for its own model. While a run is going on the state has a run id
        (the mapper's own: a snapshot carries none), the message still streaming keeps streaming, and tool
        calls of the last assistant message without a result are running, not "interrupted" as a cold
        hydration of a finished transcript would say.

        With `tail`, only the newest turns holding at least `tail` messages are folded; the earlier ones
        wait for `unfold_earlier` (`earlier` counts them). Folding all of a 10,000-entry session took
        about 1 s here (pydantic models for every part), most of the terminal app's time to show it,
        which mounts only its newest 40 (`benchmarks/bench_tui.py`)."""
        info = snapshot.state
        usage = info.usage if info.usage is not None else total_usage(snapshot.messages)
        window = context_window or _own_window(snapshot)
        options = {"new_id": new_id} if new_id is not None else {}
        mapper = EventMapper(info.session_id, context_window=window, usage_total=usage, **options)
        fold = cls(mapper)
        if info.is_streaming:
            fold.apply_event(AgentStart())
            if snapshot.streaming_message is not None:
                mapper.map(MessageStart(snapshot.streaming_message))
        live = mapper.live()
        streaming_id = live.message.id if live is not None and live.message is not None else None
        start = _turn_start(snapshot.messages, tail) if tail is not None else 0
        messages = apply_live(hydrate(snapshot.messages[start:], snapshot.entry_ids[start:]), live)
        fold._keep_earlier(snapshot.messages[:start], snapshot.entry_ids[:start])
        fold.state = dataclasses.replace(
            fold.state,
            name=info.session_name,
            messages=tuple(dataclasses.replace(message_view(m), streaming=m.id == streaming_id) for m in messages),
            steering=tuple(info.steering),
            follow_up=tuple(info.follow_up),
            questions=tuple(snapshot.pending_questions),
            usage=usage,
            context_tokens=info.context_tokens,
            context_window=info.context_window,
            model=info.model,
            thinking_level=info.thinking_level,
        )
        if info.is_streaming and snapshot.streaming_message is None:
            for call in _unanswered_calls(snapshot):
                fold.apply_event(ToolExecutionStart(call.id, call.name, call.arguments))
        return fold

    def unfold_earlier(self, tail: int) -> tuple[MessageView, ...]:
        """Fold the newest turns, holding at least `tail` messages, of those not folded yet, and put them
        before the state's messages; the views added (none when all are folded)."""
        messages, entry_ids = self._earlier
        if not messages:
            return ()
        start = _turn_start(messages, tail)
        views = tuple(message_view(m) for m in hydrate(messages[start:], entry_ids[start:]))
        self._keep_earlier(messages[:start], entry_ids[:start])
        self.state = dataclasses.replace(self.state, messages=(*views, *self.state.messages))
        return views

    def add_earlier(self, messages: Sequence[Message], entry_ids: Sequence[str]) -> None:
        """Put the messages before a snapshot cut to its newest turns (`get_snapshot(tail=...)`) before
        those not folded yet, and count what they cost in the usage total."""
        if not messages:
            return
        kept, kept_ids = self._earlier
        self._keep_earlier([*messages, *kept], [*entry_ids, *kept_ids])
        cost = total_usage(messages)
        self.mapper.add_to_total(cost)
        self.state = dataclasses.replace(
            self.state, usage=add_usage(self.state.usage, cost) if self.state.usage is not None else cost
        )

    def _keep_earlier(self, messages: Sequence[Message], entry_ids: Sequence[str]) -> None:
        self._earlier = (messages, entry_ids)
        self.earlier = sum(not isinstance(m, ToolResultMessage) for m in messages)


def _same_part(first: TextDeltaFrame | ReasoningDeltaFrame, frame: TextDeltaFrame | ReasoningDeltaFrame) -> bool:
    return type(frame) is type(first) and frame.message_id == first.message_id and frame.index == first.index


def _fold_run(state: ViewState, first: TextDeltaFrame | ReasoningDeltaFrame | None, run: list[str]) -> ViewState:
    """`state` with a run of deltas to one part (`first` the run's first frame) folded as one."""
    if first is None:
        return state
    return apply_frame(state, first if len(run) == 1 else first.model_copy(update={"delta": "".join(run)}))


def _turn_start(messages: Sequence[Message], tail: int) -> int:
    """Where the newest turns holding at least `tail` messages begin: the index of a user message after
    which every tool result answers a call also after it (so they fold alone as they fold with the rest);
    0 when there is no such message."""
    cut = TurnCut(tail)
    for index in range(len(messages) - 1, 0, -1):
        if cut.starts_at(messages[index]):
            return index
    return 0


def _own_window(snapshot: AttachSnapshot) -> Callable[[str, str], int | None]:
    model, window = snapshot.state.model, snapshot.state.context_window

    def lookup(provider: str, model_id: str) -> int | None:
        return window if model is not None and (model.provider, model.id) == (provider, model_id) else None

    return lookup


def _unanswered_calls(snapshot: AttachSnapshot) -> list[ToolCall]:
    """The tool calls of the last assistant message that no result answers yet (nothing but results
    after it): in a run going on, they are running or about to."""
    answered: set[str] = set()
    for message in reversed(snapshot.messages):
        if isinstance(message, ToolResultMessage):
            answered.add(message.tool_call_id)
        elif isinstance(message, UserMessage):
            return []
        elif isinstance(message, AssistantMessage):
            return [b for b in message.content if isinstance(b, ToolCall) and b.id not in answered]
    return []
