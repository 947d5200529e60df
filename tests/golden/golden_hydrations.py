"""A `chat/session` hydration taken mid-run of every golden scenario, and the view both folds must make of it.

The server answers `chat/session` with the transcript so far plus the live part of the run (its event
mapper's `live()`), as `server/views.py` `snapshot` does; a client builds its state with `fromSession`
/ `from_session` and folds the frames after `cursor`. `hydration/<name>.json` holds such a response,
taken in the middle of the scenario (inside a streaming message where there is one), and three view
states in the canonical form (`prime_jupyter.protocol.view.canonical`):

    {"stream": "<name>.ndjson", "cursor": <frames before the hydration>, "response": <ChatSessionResponse>,
     "previousCursor": <frames in the previous state>,
     "fresh": <from_session(response)>,
     "resynced": <from_session(response, previous)>,
     "final": <fold of the frames after the cursor, from "fresh">}

`previous` (a resync: the client's state before it refetched) is `previous_state(frames[:previousCursor])`:
an optimistic local message, then the frames up to the first assistant message's start, so `resynced`
shows the render keys carried over (the local id of the sent message, the live id of an answer that
has its entry id since).

`tests/golden/test_golden_view.py` and `labextension/test/view.test.ts` check both folds against these
files. Regenerate (and review, and run both tests) with:

    PYTHONPATH=.:tests .venv/bin/python tests/golden/golden_hydrations.py
"""

from __future__ import annotations

import json
from pathlib import Path

from kit.golden import SCENARIOS, SESSION_ID, T0, golden_path, new_mapper
from pydantic import JsonValue

from prime_jupyter.ai.types import AssistantMessage, Message, Usage
from prime_jupyter.protocol.common import SessionSummary
from prime_jupyter.protocol.events import (
    AgentEnd,
    AgentStart,
    MessageEnd,
    MessageStart,
    QuestionAsked,
    QuestionResolved,
    QueueUpdate,
    SessionEvent,
    SessionInfoChanged,
)
from prime_jupyter.protocol.frames import ChatFrame
from prime_jupyter.protocol.hydration import LiveRun, add_usage, apply_live, context_tokens, hydrate
from prime_jupyter.protocol.questions import Question
from prime_jupyter.protocol.requests import ChatSessionResponse
from prime_jupyter.protocol.snapshot import AttachSnapshot, ConnectionState
from prime_jupyter.protocol.view import ViewState, add_local_message, apply_frames, empty_state, from_session
from prime_jupyter.protocol.view.canonical import to_json
from prime_jupyter.protocol.wire import dump

HYDRATION_DIR = Path(__file__).parent / "hydration"


class Recorder:
    """What a session knows after each event: its transcript, the message streaming, the questions,
    the queue, its name, the cost so far. Feed it the events in order."""

    def __init__(self) -> None:
        self.running = False
        self.messages: list[Message] = []
        self.entry_ids: list[str] = []
        self.streaming: AssistantMessage | None = None
        self.questions: dict[str, Question] = {}
        self.queue: tuple[list[str], list[str]] = ([], [])
        self.name: str | None = None
        self.usage = Usage()

    def __call__(self, event: SessionEvent) -> None:
        match event:
            case AgentStart():
                self.running = True
            case AgentEnd():
                self.running = False
            case MessageStart(AssistantMessage() as message):
                self.streaming = message
            case MessageEnd(message, entry_id) if entry_id is not None:
                self.messages.append(message.model_copy(deep=True))
                self.entry_ids.append(entry_id)
                if isinstance(message, AssistantMessage):
                    self.streaming, self.usage = None, add_usage(self.usage, message.usage)
            case QuestionAsked(question):
                self.questions[question.id] = question
            case QuestionResolved(question_id):
                self.questions.pop(question_id, None)
            case QueueUpdate(steering, follow_up):
                self.queue = (list(steering), list(follow_up))
            case SessionInfoChanged(name):
                self.name = name

    def snapshot(self) -> AttachSnapshot:
        """The attach snapshot of the session now (vocabulary (a), for `ViewFold.from_snapshot`)."""
        state = ConnectionState(
            session_id=SESSION_ID,
            cwd="/tmp",
            session_name=self.name,
            is_streaming=self.running,
            steering=self.queue[0],
            follow_up=self.queue[1],
            usage=self.usage,
        )
        streaming = self.streaming.model_copy(deep=True) if self.streaming is not None else None
        return AttachSnapshot(
            state=state,
            messages=list(self.messages),
            entry_ids=list(self.entry_ids),
            streaming_message=streaming,
            pending_questions=list(self.questions.values()),
        )


def _cut(events: list[SessionEvent]) -> int:
    """Where the hydration is taken: inside the first message that streams past the middle, else the middle."""
    middle = len(events) // 2
    return next((i for i in range(middle, len(events)) if events[i].type == "message_update"), middle)


def hydration_of(name: str) -> tuple[ChatSessionResponse, list[ChatFrame], list[ChatFrame]]:
    """The scenario's `chat/session` answer mid-run, the frames before it and the frames after it."""
    seen: list[SessionEvent] = []
    SCENARIOS[name](seen.append)
    cut, mapper, recorder = _cut(seen), new_mapper(), Recorder()
    before: list[ChatFrame] = []
    after: list[ChatFrame] = []
    response: ChatSessionResponse | None = None
    count = 0

    def sink(event: SessionEvent) -> None:
        nonlocal count, response
        if count == cut:
            response = _response(recorder, mapper.live(), mapper.usage_total)
        count += 1
        recorder(event)
        (before if response is None else after).extend(mapper.map(event))

    SCENARIOS[name](sink)
    assert response is not None
    return response, before, after


def _response(recorder: Recorder, live: LiveRun | None, total: Usage) -> ChatSessionResponse:
    """What the server's `snapshot` (`server/views.py`) answers for this session now."""
    last = next((m for m in reversed(recorder.messages) if isinstance(m, AssistantMessage)), None)
    used = context_tokens(last.usage) if last is not None else 0
    summary = SessionSummary(
        session_id=SESSION_ID, title="t", cwd="/tmp", created_at=T0, updated_at=T0, status="running", name=recorder.name
    )
    return ChatSessionResponse(
        session=summary,
        messages=apply_live(hydrate(recorder.messages, recorder.entry_ids), live),
        cursor=0,
        live=live,
        steering=recorder.queue[0],
        follow_up=recorder.queue[1],
        pending_questions=list(recorder.questions.values()),
        usage=total,
        context_tokens=used or None,
        context_window=200_000,
    )


def previous_cursor(before: list[ChatFrame]) -> int:
    """How many frames the previous state saw: up to the first `message-start`, included."""
    return next((i + 1 for i, frame in enumerate(before) if frame.type == "message-start"), len(before))


def previous_state(frames: list[ChatFrame]) -> ViewState:
    """The state of a client that sent a message and saw `frames` (the twin of view.test.ts's)."""
    return apply_frames(add_local_message(empty_state(), "local-1", "sent", 0), frames)


def expected_hydration(name: str) -> dict[str, JsonValue]:
    response, before, after = hydration_of(name)
    fresh = from_session(response)
    previous = previous_cursor(before)
    resynced = from_session(response, previous_state(before[:previous]))
    return {
        "stream": golden_path(name).name,
        "cursor": len(before),
        "response": dump(response),
        "previousCursor": previous,
        "fresh": to_json(fresh),
        "resynced": to_json(resynced),
        "final": to_json(apply_frames(fresh, after)),
    }


def hydration_path(name: str) -> Path:
    return HYDRATION_DIR / f"{name}.json"


def main() -> None:
    HYDRATION_DIR.mkdir(exist_ok=True)
    for name in SCENARIOS:
        text = json.dumps(expected_hydration(name), ensure_ascii=False, indent=1) + "\n"
        hydration_path(name).write_text(text, encoding="utf-8")
        print(f"wrote {hydration_path(name)}")


if __name__ == "__main__":
    main()
